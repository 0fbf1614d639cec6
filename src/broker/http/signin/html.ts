/** Server-rendered pages: one layout, every interpolated value escaped. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A tagged template whose `${}` values are escaped unless wrapped in `raw()`. */
export function html(strings: TemplateStringsArray, ...values: Array<string | Raw | undefined>): Raw {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += (value instanceof Raw ? value.text : escapeHtml(value ?? '')) + strings[i + 1]!;
  });
  return new Raw(out);
}

export class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const style = `
  body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }
  h1 { font-size: 1.5rem; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input[type=text] { font: inherit; font-size: 1.4rem; letter-spacing: .15em; text-transform: uppercase; padding: .4rem .6rem; width: 12ch; }
  button { font: inherit; padding: .45rem 1.1rem; margin: 1rem .5rem 0 0; cursor: pointer; }
  .error { color: #a40000; font-weight: 600; }
  .note { background: #f3f3f3; padding: .6rem .8rem; border-radius: .3rem; }
  code { font-size: 1.05em; }
  :focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }`;

export function page(title: string, body: Raw): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · demarkus</title>
<style>${style}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body.text}
</main>
</body>
</html>
`;
}
