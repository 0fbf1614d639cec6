import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkSubmission, parsePolicy, PolicyFormatError, type Severity } from '../../../src/broker/knowledge/index.ts';

const table = (rows: string[]) =>
  `# Publishing policy\n\nPeople read this part.\n\n| rule | setting | severity |\n|------|---------|----------|\n${rows.join('\n')}\n`;

const good = {
  body: '# Deploy runbook\n\nHow to ship a release safely.\n\n## Steps\n\nRun the pipeline.\n',
  metadata: { tags: 'category:runbook, deploy', importance: '0.5', owner: 'ops@example.com' },
};

const everyRule = (severity: Severity) =>
  parsePolicy(
    table([
      `| required-tags | category, audience | ${severity} |`,
      `| importance | 0.2 to 0.8 | ${severity} |`,
      `| required-fields | owner | ${severity} |`,
      `| h1-first | | ${severity} |`,
      `| summary-sentence | | ${severity} |`,
      `| unique-headings | | ${severity} |`,
      `| banned-characters | U+2014 | ${severity} |`,
      `| no-frontmatter | | ${severity} |`,
      `| no-secrets | | ${severity} |`,
    ]),
  );

describe('publishing policy format', () => {
  it('takes a delimiter row with trailing blanks', () => {
    const markdown = '# P\n\n| rule | setting | severity |\n|---|---|---| \t \n| h1-first | | warn |\n';
    assert.deepEqual(
      parsePolicy(markdown).rules.map((rule) => rule.id),
      ['h1-first'],
    );
  });

  it('reads the rule table, taking blank severities from the strictness row', () => {
    const policy = parsePolicy(table(['| strictness | | ask |', '| h1-first | | |', '| no-secrets | | block |']));
    assert.equal(policy.strictness, 'ask');
    assert.deepEqual(
      policy.rules.map((rule) => [rule.id, rule.severity]),
      [
        ['h1-first', 'ask'],
        ['no-secrets', 'block'],
      ],
    );
  });

  it('drops rules set to off and reads each setting form', () => {
    const policy = parsePolicy(
      table([
        '| summary-sentence | | off |',
        '| importance | 0.1..1 | warn |',
        '| banned-characters | — U+2013 | warn |',
        '| required-tags | Category | block |',
      ]),
    );
    assert.deepEqual(policy.rules, [
      { id: 'importance', setting: { min: 0.1, max: 1 }, severity: 'warn' },
      { id: 'banned-characters', setting: ['\u2014', '\u2013'], severity: 'warn' },
      { id: 'required-tags', setting: ['category'], severity: 'block' },
    ]);
  });

  it('separates banned characters by whitespace only, so a comma can be banned', () => {
    const policy = parsePolicy(table(['| banned-characters | , U+2014\t; | warn |']));
    assert.deepEqual(policy.rules, [{ id: 'banned-characters', setting: [',', '\u2014', ';'], severity: 'warn' }]);
    assert.throws(
      () => parsePolicy(table(['| banned-characters | U+2014, U+2013 | warn |'])),
      /"U\+2014," is not one character or U\+XXXX \(separate them with spaces\)/,
    );
  });

  it('ignores a table inside fenced code and reads the real one after it', () => {
    const markdown = `# P\n\n\`\`\`\n| rule | setting | severity |\n|---|---|---|\n| h1-first | | block |\n\`\`\`\n\n${table(['| no-secrets | | warn |'])}`;
    assert.deepEqual(
      parsePolicy(markdown).rules.map((rule) => rule.id),
      ['no-secrets'],
    );
  });

  for (const [name, markdown, message] of [
    ['no table', '# Policy\n\nJust prose.\n', /no policy table/],
    ['an unknown rule', table(['| be-nice | | warn |']), /line 7: unknown rule "be-nice"/],
    ['a bad severity', table(['| h1-first | | maybe |']), /severity "maybe" is not one of/],
    ['a rule listed twice', table(['| h1-first | | warn |', '| h1-first | | block |']), /listed twice/],
    ['a range outside 0 to 1', table(['| importance | 0.5 to 2 | warn |']), /inside 0 to 1/],
    ['a setting on a rule without one', table(['| h1-first | yes | warn |']), /takes no setting/],
    ['an empty tag list', table(['| required-tags | | warn |']), /needs a comma list/],
    ['a multi-character banned token', table(['| banned-characters | -- | warn |']), /not one character/],
    ['a row with two cells', table(['| h1-first | warn |']), /3 cells, found 2/],
  ] as const) {
    it(`refuses a policy with ${name}`, () => {
      assert.throws(
        () => parsePolicy(markdown),
        (error: unknown) => {
          assert.ok(error instanceof PolicyFormatError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }
});

describe('publishing policy rules', () => {
  it('passes a document that follows every rule, untouched', () => {
    assert.deepEqual(checkSubmission(everyRule('block'), good, 'document'), [
      {
        rule: 'required-tags',
        severity: 'block',
        problem: 'no "audience:" tag',
        fix: 'add a tag such as audience:<value> to metadata.tags',
      },
    ]);
    const withAudience = { ...good, metadata: { ...good.metadata, tags: 'category:runbook, audience:ops' } };
    assert.deepEqual(checkSubmission(everyRule('block'), withAudience, 'document'), []);
  });

  it('names every rule a bad document breaks, at the declared severity, without echoing secrets', () => {
    const secret = 'AKIAABCDEFGHIJKLMNOP';
    const bad = {
      body: `---\ntitle: x\n---\n## Notes\n\nText — with a dash.\n\n## Notes\n\nkey ${secret}\nsee https://bob:hunter2@db.example.com/\n`,
      metadata: { tags: 'runbook', importance: '0.95' },
    };
    for (const severity of ['block', 'ask', 'warn'] as const) {
      const violations = checkSubmission(everyRule(severity), bad, 'document');
      assert.ok(violations.every((v) => v.severity === severity));
      assert.deepEqual([...new Set(violations.map((v) => v.rule))].sort(), [
        'banned-characters',
        'h1-first',
        'importance',
        'no-frontmatter',
        'no-secrets',
        'required-fields',
        'required-tags',
        'summary-sentence',
        'unique-headings',
      ]);
      const text = JSON.stringify(violations);
      assert.ok(!text.includes(secret) && !text.includes('hunter2'), 'a finding never repeats the secret');
      assert.match(text, /line 10 looks like an AWS access key id/);
      assert.match(text, /line 11 looks like a password in a URL/);
      assert.match(text, /U\+2014 \(\\"—\\"\) on line 6/);
    }
  });

  it('checks a summary: present, a sentence, and only one', () => {
    const policy = parsePolicy(table(['| summary-sentence | | warn |']));
    const problems = (body: string) =>
      checkSubmission(policy, { body, metadata: {} }, 'document').map((v) => v.problem);
    assert.deepEqual(problems('# T\n\nOne sentence here.\n\n## A\n'), []);
    assert.deepEqual(problems('# T\n\n## A\n'), ['no summary paragraph under the H1']);
    assert.deepEqual(problems('# T\n\n- a list\n'), ['no summary paragraph under the H1']);
    assert.deepEqual(problems('# T\n\nno full stop\n'), ['the summary under the H1 is not a sentence']);
    assert.deepEqual(problems('# T\n\nFirst one. Second one.\n'), [
      'the summary under the H1 is more than one sentence',
    ]);
    assert.deepEqual(problems('Setext title\n============\n\nA line that wraps\nonto a second line.\n'), []);
  });

  it('finds the common credential shapes and leaves ordinary text alone', () => {
    const policy = parsePolicy(table(['| no-secrets | | block |']));
    const found = (line: string) =>
      checkSubmission(policy, { body: `# T\n\n${line}\n`, metadata: {} }, 'document').map((v) => v.problem);
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s'.repeat(20)}`;
    assert.deepEqual(found('-----BEGIN OPENSSH PRIVATE KEY-----'), ['line 3 looks like a private key block']);
    assert.deepEqual(found(`token ghp_${'a'.repeat(36)}`), ['line 3 looks like a GitHub token']);
    assert.deepEqual(found(`Authorization: Bearer ${'x'.repeat(30)}`), ['line 3 looks like a bearer token']);
    assert.deepEqual(found(jwt), ['line 3 looks like a JSON Web Token']);
    assert.deepEqual(found(`AIza${'b'.repeat(35)}`), ['line 3 looks like a Google API key']);
    assert.deepEqual(found('Use the bearer token from the vault; see https://example.com/a@b.'), []);
    assert.deepEqual(found('AKIA is the prefix of AWS key ids'), []);
  });

  it('finds each shape in the forms the linear-time patterns must keep catching', () => {
    const policy = parsePolicy(table(['| no-secrets | | block |']));
    const found = (line: string) =>
      checkSubmission(policy, { body: `# T\n\n${line}\n`, metadata: {} }, 'document').map((v) => v.problem);
    const url = ['line 3 looks like a password in a URL'];
    assert.deepEqual(found('postgres://u:p@h'), url);
    assert.deepEqual(found('DSN: https://alice:s3cret@db.example.com:5432/app'), url);
    assert.deepEqual(found('HTTPS://A:B@C'), url);
    assert.deepEqual(found('(git+ssh://deploy:hunter2@git.example.com/repo)'), url);
    // Dash- and dot-joined words before the scheme: the scheme starts at the last word start.
    assert.deepEqual(found('see-the-production-database-at-postgres://u:p@h'), url);
    assert.deepEqual(found(`${'a.'.repeat(40)}https://u:p@h`), url);
    assert.deepEqual(found('mail alice@example.com, or see https://example.com/a:b@c'), []);
    assert.deepEqual(found(`${'a'.repeat(40)}://u:p@h`), [], 'a scheme is at most 32 characters');

    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s'.repeat(20)}`;
    const token = ['line 3 looks like a JSON Web Token'];
    assert.deepEqual(found(`token=${jwt}`), token);
    assert.deepEqual(found(`-${jwt}`), token);
    assert.deepEqual(found(`session-cookie-${jwt}`), token, 'an eyJ start after a dash inside a longer run');
    assert.deepEqual(found(`eyJ-not-this-one-${jwt}`), token);
    assert.deepEqual(found(`x_${jwt}`), [], 'no word start before eyJ');
    assert.deepEqual(found(jwt.slice(0, jwt.lastIndexOf('.'))), [], 'two parts are not a JWT');

    assert.deepEqual(found('-----BEGIN PGP PRIVATE KEY BLOCK-----'), ['line 3 looks like a private key block']);
    assert.deepEqual(found('-----BEGIN PRIVATE KEY-----'), ['line 3 looks like a private key block']);
    assert.deepEqual(found(`github_pat_${'A1_'.repeat(27)}x`), ['line 3 looks like a GitHub token']);
    assert.deepEqual(found('SLACK=xoxb-1234567890-abcdefghij'), ['line 3 looks like a Slack token']);
    assert.deepEqual(found(`sk_live_${'a1B2'.repeat(6)}`), ['line 3 looks like a Stripe live key']);
  });

  it('reads every metadata key and value for characters and secrets, naming the field but never a secret', () => {
    const policy = parsePolicy(table(['| no-secrets | | block |', '| banned-characters | U+2014 | warn |']));
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const problems = checkSubmission(
      policy,
      { body: '# T\n\nClean.\n', metadata: { notes: `one\ntwo ghp_${'a'.repeat(36)}`, [key]: 'x', 'a\u2014b': 'ok' } },
      'document',
    ).map((v) => v.problem);
    assert.deepEqual(problems, [
      'metadata.notes looks like a GitHub token',
      'a metadata key looks like an AWS access key id',
      'U+2014 ("\u2014") in the metadata key "a\u2014b"',
    ]);
  });

  it('does not read the broker-set agent, which the caller cannot change, and reads every other key', () => {
    const policy = parsePolicy(table(['| banned-characters | + | block |']));
    const problems = (metadata: Record<string, string>) =>
      checkSubmission(policy, { body: '# T\n\nClean.\n', metadata }, 'document').map((v) => v.problem);
    assert.deepEqual(problems({ agent: 'alice+docs@example.com' }), []);
    assert.deepEqual(problems({ author: 'alice+docs@example.com' }), ['U+002B ("+") in metadata.author']);
  });

  it('finds the credentials of common services, and leaves prose with the same letters alone', () => {
    const policy = parsePolicy(table(['| no-secrets | | block |']));
    const found = (line: string) =>
      checkSubmission(policy, { body: `# T\n\n${line}\n`, metadata: {} }, 'document').map((v) =>
        v.problem.replace(/^line 3 looks like /, ''),
      );
    const run = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (const [line, kind] of [
      ['cache: redis://:Sup3rS3cretPassw0rd@redis.internal:6379/0', 'a password in a URL'],
      [`OPENAI_API_KEY=sk-proj-${run}`, 'an OpenAI or Anthropic API key'],
      [`sk-ant-api03-${run}`, 'an OpenAI or Anthropic API key'],
      [`key: sk-${run.slice(0, 48)}`, 'an OpenAI or Anthropic API key'],
      ['glpat-abcdefghij0123456789', 'a GitLab token'],
      [`//registry.npmjs.org/:_authToken=npm_${run.slice(0, 36)}`, 'an npm token'],
      ['https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'a Slack webhook URL'],
      ['client_secret: GOCSPX-abcdefghijklmnopqrstuvwx12', 'a Google OAuth client secret'],
      [
        `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${run}==;EndpointSuffix=core.windows.net`,
        'an Azure storage key',
      ],
      ['Authorization: Basic YWRtaW46aHVudGVyMg==', 'a basic auth header'],
      ['curl -H "authorization: basic dXNlcjpwYXNzd29yZA=="', 'a basic auth header'],
    ] as const)
      assert.deepEqual(found(line), [kind], line);
    for (const prose of [
      'We use sk-learn (scikit-learn) for the task-based risk-scoring models.',
      'Set npm_config_registry to the mirror; a glpat- token goes in the vault.',
      `redis://:${'$'}{REDIS_PASSWORD}@redis:6379 takes the password from the environment`,
      'Authorization: Basic authentication sends the user and password on every request.',
      'AccountKey=<your storage key>; GOCSPX- prefixes Google client secrets.',
      'See https://hooks.slack.com/services/ for how webhooks work.',
    ])
      assert.deepEqual(found(prose), [], prose);
  });

  it('checks an appended fragment only for characters and secrets', () => {
    const fragment = { body: '## Later\n\nMore — text.\n', metadata: {} };
    assert.deepEqual(
      checkSubmission(everyRule('block'), fragment, 'fragment').map((v) => v.rule),
      ['banned-characters'],
    );
  });
});
