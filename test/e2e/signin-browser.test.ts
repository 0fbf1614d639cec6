import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { chromiumArgs, chromiumPath, skipWithoutChromium as skip } from './chromium.ts';

describe('device verification page in a real browser', { skip }, () => {
  let stack: SignInStack;
  let browser: BrowserContext;
  let profile: string;
  before(async () => {
    stack = await startSignInStack();
    profile = await mkdtemp(join(tmpdir(), 'demarkus-chromium-'));
    // A fresh, empty profile directory each run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [...chromiumArgs],
    });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  const poll = (deviceCode: string) =>
    stack.post('/oauth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
      client_id: 'demarkus-cli',
    });

  it('lets a person type the code, confirm who asks, sign in at the IdP and finish, then the device gets its tokens', async () => {
    const { json: grant } = await stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'mark.read' });
    const page = await browser.newPage();
    await page.goto(grant.verification_uri as string);
    await page.getByLabel('Code shown on your device').fill((grant.user_code as string).toLowerCase());
    await page.getByRole('button', { name: 'Continue to sign-in' }).click();
    // RFC 8628 §5.4: the typed code first brings the page naming the program and its access; nothing is signed in yet.
    await page.getByText('demarkus-broker CLI asks to sign in as you.').waitFor();
    assert.equal(new URL(page.url()).origin, stack.issuer, 'still at the broker');
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
    assert.match(await page.locator('ul.scopes').innerText(), /^read the documents you may read, in every world$/);
    assert.equal(await page.getByLabel('Code shown on your device').inputValue(), grant.user_code);
    await page.getByRole('button', { name: 'Continue to sign-in' }).click();
    await page.getByLabel('Email address').fill('olivia@example.com');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Device signed in' }).waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
    assert.match(await page.locator('main').innerText(), /Signed in as olivia@example\.com/);
    await page.close();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const tokens = await poll(grant.device_code as string);
    assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
    assert.equal(typeof tokens.json.access_token, 'string');
  });

  it('shows a typed wrong code as an error on the same page', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.issuer}/device`);
    await page.getByLabel('Code shown on your device').fill('ZZZZ-ZZZZ');
    await page.getByRole('button', { name: 'Continue to sign-in' }).click();
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
    assert.match(await page.getByRole('alert').innerText(), /Invalid or expired code/);
    await page.close();
  });
});
