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

/** Where every page of the broker and of the development IdP finds the one stylesheet. */
export const stylesheetPath = '/assets/pages.css';

/**
 * The one stylesheet of every page the broker and the development IdP serve:
 * a readable column on a desktop, the full width on a phone (nothing wider
 * than the screen: long codes and URLs wrap, inputs and buttons shrink).
 * Served as a file so the pages' CSP admits styles from 'self' only.
 */
export const pageStylesheet = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 2.5rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 1rem; }
p, dl { margin: 0 0 1rem; }
dt { font-weight: 600; margin-top: .5rem; }
dd { margin: 0 0 .25rem; }
ul.scopes { margin: 0 0 1rem; padding-left: 1.25rem; }
label { display: block; font-weight: 600; margin: .8rem 0 .25rem; }
input { font: inherit; padding: .45rem .6rem; max-width: 100%; border: 1px solid #767676; border-radius: .25rem; }
input[type=email] { width: 22rem; }
input.code { font-size: 1.4rem; letter-spacing: .15em; text-transform: uppercase; width: 12ch; }
.actions { display: flex; flex-wrap: wrap; gap: .6rem; margin-top: 1rem; }
button, .button { font: inherit; padding: .5rem 1.1rem; min-height: 2.75rem; border-radius: .3rem; border: 1px solid #0b5cad; background: #0b5cad; color: #fff; cursor: pointer; text-decoration: none; display: inline-flex; align-items: center; }
button.secondary { background: #fff; color: #0b5cad; }
.error { color: #a40000; font-weight: 600; }
.note { background: #f3f3f3; padding: .6rem .8rem; border-radius: .3rem; }
.verified { color: #1a6b1a; font-weight: 600; }
.unverified { color: #8a5300; font-weight: 600; }
.detail { color: #555; font-size: .9rem; }
.dev { background: #fff3cd; border: 2px solid #b58100; padding: .6rem .8rem; border-radius: .3rem; }
code { font-size: 1.05em; }
:focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
@media (max-width: 30rem) { body { margin: 1.25rem auto; } input[type=email] { width: 100%; } }
`;

/** The one layout: `banner` sits above the title (the development IdP's warning). */
export function page(title: string, body: Raw, options: { banner?: Raw } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · demarkus</title>
<link rel="stylesheet" href="${stylesheetPath}">
</head>
<body>
<main>
${options.banner?.text ?? ''}<h1>${escapeHtml(title)}</h1>
${body.text}
</main>
</body>
</html>
`;
}
