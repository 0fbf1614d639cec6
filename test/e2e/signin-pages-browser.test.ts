/**
 * The sign-in pages in real Chromium, at desktop and at phone width: one
 * stylesheet (the broker's file, also served by the development IdP), the
 * client named with whether that name is verified, scopes in plain words,
 * error pages as sentences with a next step, and nothing wider than a phone's
 * screen. Each page is also captured as a screenshot (kept under the test's
 * temporary directory while it runs), and the test checks the elements a
 * person needs on it: visible, inside the viewport, large enough to tap.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { chromiumArgs, chromiumPath, skipWithoutChromium as skip } from './chromium.ts';

const viewports = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

type Layout = {
  stylesheets: string[];
  inlineStyles: number;
  scrollWidth: number;
  innerWidth: number;
  bodyFont: string;
};

async function layout(page: Page): Promise<Layout> {
  // Evaluated in the page (a string: the project's TypeScript has no DOM types).
  return page.evaluate(`({
    stylesheets: [...document.styleSheets].map((sheet) => sheet.href ?? 'inline'),
    inlineStyles: document.querySelectorAll('style, [style]').length,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    bodyFont: getComputedStyle(document.body).fontFamily,
  })`) as Promise<Layout>;
}

/** The element is shown, lies inside the viewport's width and (for controls) is at least 40 CSS px tall. */
async function usable(page: Page, locator: ReturnType<Page['locator']>, what: string, control = false): Promise<void> {
  await locator.waitFor({ state: 'visible' });
  const box = await locator.boundingBox();
  assert.ok(box, `${what} has a box`);
  const width = page.viewportSize()!.width;
  assert.ok(
    box.x >= 0 && box.x + box.width <= width + 0.5,
    `${what} fits the ${width}px viewport: ${JSON.stringify(box)}`,
  );
  if (control) assert.ok(box.height >= 40, `${what} is tall enough to tap: ${box.height}px`);
}

describe('sign-in pages in real Chromium at desktop and phone width', { skip }, () => {
  let stack: SignInStack;
  let browser: Browser;
  let shots: string;
  before(async () => {
    stack = await startSignInStack();
    shots = await mkdtemp(join(tmpdir(), 'demarkus-pages-'));
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: [...chromiumArgs] });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    if (shots) await rm(shots, { recursive: true, force: true });
  });

  /** Opens `url` in a fresh context of the given size; checks the one stylesheet and the width; takes the screenshot. */
  async function open(size: keyof typeof viewports, url: string, name: string): Promise<Page> {
    const context = await browser.newContext(viewports[size]);
    const page = await context.newPage();
    await page.goto(url);
    const seen = await layout(page);
    const origin = new URL(page.url()).origin;
    assert.deepEqual(seen.stylesheets, [`${origin}/assets/pages.css`], `${name}: one stylesheet, the shared file`);
    assert.equal(seen.inlineStyles, 0, `${name}: no inline styles`);
    assert.match(seen.bodyFont, /system-ui/, `${name}: the stylesheet applied`);
    assert.ok(
      seen.scrollWidth <= seen.innerWidth,
      `${name} at ${size}: ${seen.scrollWidth}px wide in ${seen.innerWidth}px`,
    );
    const shot = await page.screenshot({ path: join(shots, `${name}-${size}.png`), fullPage: true });
    // A PNG of the viewport's width in device pixels (IHDR width at byte 16).
    const { width, deviceScaleFactor = 1 } = { ...viewports[size].viewport, ...viewports[size] } as {
      width: number;
      deviceScaleFactor?: number;
    };
    assert.equal(shot.readUInt32BE(16), width * deviceScaleFactor, `${name} at ${size}: screenshot width`);
    return page;
  }

  for (const size of ['desktop', 'phone'] as const) {
    it(`${size}: the device page from the login link names the program, says when to continue and what it may do`, async () => {
      const { json: grant } = await stack.post('/device/authorize', {
        client_id: 'demarkus-cli',
        scope: 'openid email mark.read mark.write',
      });
      const page = await open(size, grant.verification_uri_complete as string, 'device');
      const main = page.locator('main');
      await usable(page, page.getByRole('heading', { name: 'Sign in a device' }), 'title');
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
      const text = await main.innerText();
      assert.match(text, /demarkus-broker CLI asks to sign in as you\./);
      assert.match(
        text,
        /This is the demarkus command-line tool, but anyone can start a sign-in request in its name\./,
      );
      assert.match(text, /Continue only if you ran demarkus-broker login yourself just now\./);
      assert.doesNotMatch(text, /Verified/);
      assert.match(text, /read the documents you may read, in every world/);
      assert.match(text, /publish and change documents in the worlds where you may write/);
      assert.doesNotMatch(text, /mark\.read|mark\.write/);
      assert.equal(await page.getByLabel('Code shown on your device').inputValue(), grant.user_code);
      await usable(page, page.getByLabel('Code shown on your device'), 'code field', true);
      await usable(page, page.getByRole('button', { name: 'Continue to sign-in' }), 'continue button', true);
      await usable(page, page.getByRole('button', { name: 'Deny' }), 'deny button', true);
      // The IdP's page: the same stylesheet, from its own origin, under the development warning.
      await page.getByRole('button', { name: 'Continue to sign-in' }).click();
      await page.getByLabel('Email address').waitFor();
      const idp = await layout(page);
      assert.deepEqual(idp.stylesheets, [`${stack.idp.issuer}/assets/pages.css`]);
      assert.ok(idp.scrollWidth <= idp.innerWidth, `IdP page at ${size}: ${idp.scrollWidth}px in ${idp.innerWidth}px`);
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
      assert.match(await page.getByRole('note').innerText(), /Development identity provider/);
      await usable(page, page.getByLabel('Email address'), 'email field', true);
      await usable(page, page.getByRole('button', { name: 'Sign in' }), 'sign-in button', true);
      await page.context().close();
    });

    it(`${size}: the consent page names a self-registered client as not verified, with its access in plain words`, async () => {
      const redirectUri = 'http://127.0.0.1:9/callback';
      const registered = (await (
        await fetch(`${stack.issuer}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Notes Helper',
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: 'none',
          }),
        })
      ).json()) as { client_id: string };
      const authorize = new URL(`${stack.issuer}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: redirectUri,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        scope: 'mark.read',
        state: 'pages',
        resource: stack.resource,
      }).toString();
      const page = await open(size, authorize.href, 'consent');
      await usable(page, page.getByRole('heading', { name: 'Allow access?' }), 'title');
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
      const text = await page.locator('main').innerText();
      assert.match(text, /Notes Helper wants to use the demarkus knowledge system as you\./);
      assert.match(text, /Not verified: the application chose this name itself when it registered\./);
      assert.match(text, /read the documents you may read, in every world/);
      assert.doesNotMatch(text, /publish and change/);
      assert.match(text, /127\.0\.0\.1:9 \(a program on this computer\)/);
      await usable(page, page.getByRole('button', { name: 'Allow and sign in' }), 'allow button', true);
      await usable(page, page.getByRole('button', { name: 'Deny' }), 'deny button', true);
      await page.context().close();
    });

    it(`${size}: an error page is a plain sentence with the next step, the protocol's words kept small`, async () => {
      const authorize = new URL(`${stack.issuer}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'forgotten-client',
        redirect_uri: 'http://127.0.0.1:9/callback',
      }).toString();
      const page = await open(size, authorize.href, 'error');
      await usable(page, page.getByRole('heading', { name: 'This sign-in link is not valid' }), 'title');
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
      const alert = await page.getByRole('alert').innerText();
      assert.equal(
        alert,
        'This sign-in service does not know the application that sent you here: its registration may have expired, or it was made with another server.',
      );
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText() (rendered text), not the DOM property
      const text = await page.locator('main').innerText();
      assert.match(text, /Go back to the application and start signing in again\. It registers itself again\./);
      assert.match(text, /What the sign-in service saw: unknown client_id/);
      await page.context().close();
    });

    it(`${size}: a denied device code ends on a page with a link to enter a code again`, async () => {
      const { json: grant } = await stack.post('/device/authorize', { client_id: 'demarkus-cli' });
      const page = await open(size, grant.verification_uri_complete as string, 'device-deny');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Request denied' }).waitFor();
      const again = page.getByRole('link', { name: 'Enter a code again' });
      await usable(page, again, 'enter-again link', true);
      assert.equal(new URL((await again.getAttribute('href'))!, stack.issuer).pathname, '/device');
      await page.context().close();
    });
  }
});
