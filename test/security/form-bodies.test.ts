/**
 * Threat: a caller sends the OAuth form endpoints a JSON body whose values are
 * not strings. RFC 6749 §3.2 / §4.1.3 and RFC 8628 §3.1 define these requests
 * as `application/x-www-form-urlencoded`, and the handlers are written for a
 * flat record of strings; an array, an object or a number reaches
 * `clientId.startsWith`, `createHash().update`, `Buffer.from` or
 * `normalizeUserCode` and throws a TypeError.
 *
 * The attack succeeded while fastify's default JSON parser stayed on for
 * these routes and `formOf` returned the parsed object as it was (checked by
 * running this file against it): `POST /oauth/token` with `client_id:
 * ["demarkus-cli"]`, `client_id: {}`, `device_code: {}` or `refresh_token: 5`
 * each answered `500 {"error":"server_error"}`, a crash path any anonymous
 * caller could walk at will.
 *
 * The real broker and its real sign-in routes over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formOf } from '../../src/broker/http/signin/form-body.ts';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';
import { UserAgent } from '../e2e/signin-user-agent.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

describe('security: the OAuth form endpoints take form bodies only', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  const send = async (path: string, contentType: string, body: string) => {
    const response = await fetch(`${stack.issuer}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const json = (path: string, value: unknown) => send(path, 'application/json', JSON.stringify(value));

  it('answers a JSON token request with non-string values 400 invalid_request, never a server error', async () => {
    for (const body of [
      { grant_type: 'authorization_code', client_id: ['demarkus-cli'], code: 'x', code_verifier: 'y' },
      { grant_type: 'authorization_code', client_id: { a: 1 } },
      { grant_type: deviceGrant, client_id: 'demarkus-cli', device_code: { a: 1 } },
      { grant_type: 'refresh_token', client_id: 'demarkus-cli', refresh_token: 5 },
    ]) {
      const answer = await json('/oauth/token', body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)} -> ${answer.status} ${answer.text}`);
      const error = JSON.parse(answer.text) as { error: string; error_description: string };
      assert.equal(error.error, 'invalid_request');
      assert.match(error.error_description, /application\/x-www-form-urlencoded/);
    }
  });

  it('refuses JSON, and any other content type, at every form endpoint, even with only string values', async () => {
    const wellFormed = { grant_type: deviceGrant, client_id: 'demarkus-cli', device_code: 'x', token: 'x' };
    for (const path of ['/oauth/token', '/device/token', '/device/authorize', '/oauth/revoke', '/token/revoke']) {
      for (const [type, body] of [
        ['application/json', JSON.stringify(wellFormed)],
        ['text/plain', 'client_id=demarkus-cli'],
        ['multipart/form-data; boundary=x', '--x--'],
      ] as const) {
        const answer = await send(path, type, body);
        assert.equal(answer.status, 400, `${path} ${type}: ${answer.text}`);
        assert.equal((JSON.parse(answer.text) as { error: string }).error, 'invalid_request', `${path} ${type}`);
      }
    }
  });

  it('refuses JSON at the browser forms with a page, not a crash', async () => {
    for (const [path, body] of [
      ['/device', { csrf: ['x'], user_code: { a: 1 }, action: 'approve' }],
      ['/oauth/authorize', { consent_id: { a: 1 }, csrf: 5, decision: 'approve' }],
      ['/oauth/authorize', { response_type: 'code', client_id: ['demarkus-cli'] }],
    ] as const) {
      const answer = await json(path, body);
      assert.equal(answer.status, 400, `${path}: ${answer.text}`);
      assert.match(answer.type, /^text\/html/);
      assert.match(answer.text, /application\/x-www-form-urlencoded/);
    }
  });

  it('still takes form bodies, with a charset parameter too, and refuses a repeated parameter', async () => {
    const device = await send(
      '/device/authorize',
      'application/x-www-form-urlencoded; charset=UTF-8',
      'client_id=demarkus-cli&scope=mark.read',
    );
    assert.equal(device.status, 200, device.text);
    const repeated = await send('/oauth/token', 'application/x-www-form-urlencoded', 'client_id=a&client_id=b');
    assert.equal(repeated.status, 400);
    assert.equal((JSON.parse(repeated.text) as { error: string }).error, 'invalid_request');
    // The typed-code page still works as a person's browser posts it.
    const agent = new UserAgent();
    const wrong = await agent.submit(await agent.go(`${stack.issuer}/device`), { user_code: 'BBBB-BBBB' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /Invalid or expired code/);
  });

  it('keeps RFC 7591 registration JSON', async () => {
    const answer = await json('/register', {
      client_name: 'Form Test',
      redirect_uris: ['http://127.0.0.1:9/cb'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(answer.status, 201, answer.text);
  });

  it('formOf hands on strings only, whatever body reaches it', () => {
    assert.deepEqual({ ...formOf(undefined) }, {});
    for (const body of [{ client_id: ['a'] }, { client_id: { a: 1 } }, { refresh_token: 5 }, { x: null }, 'a=1', [1]])
      assert.throws(() => formOf(body), { code: 'ERR_OAUTH_INVALID_REQUEST' }, JSON.stringify(body));
  });
});
