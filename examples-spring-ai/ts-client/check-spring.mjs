// Drives the example Spring AI MCP server (examples-spring-ai, streamable HTTP with bearer tokens)
// with the official MCP TypeScript SDK, a client agentauth did not write, and checks what the
// starter's guard shows it:
//   tools     -> alice sees search_notes, send_email and delete_note; bob only search_notes
//                (tools/list filtered by each user's active authorization);
//   allow     -> alice's search_notes runs;
//   deny      -> bob's send_email is an error result whose structuredContent and text hold
//                decision, reason and receipt_id;
//   confirm   -> alice's send_email carries confirm_nonce and confirm_expires_at;
//   forged    -> bob naming alice in a user_id argument is refused, and stays bob's;
//   anonymous -> a client without a token cannot connect (HTTP 401).
//
// Usage: node check-spring.mjs MCP_URL
// The SDK is looked up in $AGENTAUTH_NODE_CACHE (where .ci/run installs it, at the version of
// examples/ts-client/package.json; default ~/.cache/agentauth-node).
//
// Output: one JSON line per check on standard output ({"check", "ok", "detail", "result"}); exit
// status 0 when every check passed, 1 when one failed, 2 on a usage error or a missing SDK.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const SDK = '@modelcontextprotocol/sdk';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function loadSdk() {
  const base = process.env.AGENTAUTH_NODE_CACHE || join(homedir(), '.cache', 'agentauth-node');
  // ESM ignores NODE_PATH; resolve through a require rooted in the install prefix instead.
  const require = createRequire(join(base, 'noop.js'));
  try {
    const entry = require.resolve(`${SDK}/client/index.js`);
    const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
    return {
      base,
      version: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
      Client: require(`${SDK}/client/index.js`).Client,
      StreamableHTTPClientTransport: require(`${SDK}/client/streamableHttp.js`)
        .StreamableHTTPClientTransport,
    };
  } catch (e) {
    if (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return null;
    throw e;
  }
}

const [mcpUrl] = process.argv.slice(2);
if (!mcpUrl) {
  console.error('usage: node check-spring.mjs MCP_URL');
  process.exit(2);
}
const sdk = loadSdk();
if (!sdk) {
  console.error(`check-spring: ${SDK} is not installed (see .ci/run)`);
  process.exit(2);
}
console.error(`check-spring: ${SDK} ${sdk.version} from ${sdk.base}`);

let failed = 0;
function report(check, problems, result) {
  if (problems.length > 0) failed++;
  console.log(
    JSON.stringify({ check, ok: problems.length === 0, detail: problems.join('; ') || null, result }));
}

async function connect(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new sdk.StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } });
  const client = new sdk.Client({ name: 'agentauth-check-spring', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const textOf = (r) => (r.content ?? []).find((c) => c.type === 'text')?.text;

function decisionProblems(result, expected) {
  const problems = [];
  if (result.isError !== true) problems.push(`isError is ${result.isError}`);
  const sc = result.structuredContent;
  if (typeof sc !== 'object' || sc === null) return [...problems, 'no structuredContent'];
  try {
    if (!isDeepStrictEqual(JSON.parse(textOf(result)), sc)) problems.push('text and structuredContent differ');
  } catch {
    problems.push('the text block is not JSON');
  }
  for (const [key, value] of Object.entries(expected)) {
    if (value instanceof RegExp) {
      if (typeof sc[key] !== 'string' || !value.test(sc[key])) problems.push(`${key} is ${sc[key]}`);
    } else if (sc[key] !== value) {
      problems.push(`${key} is ${JSON.stringify(sc[key])}, expected ${JSON.stringify(value)}`);
    }
  }
  return problems;
}

const clients = [];
try {
  const alice = await connect('alice-token');
  const bob = await connect('bob-token');
  clients.push(alice, bob);

  const aliceTools = (await alice.listTools()).tools.map((t) => t.name).sort();
  const bobTools = (await bob.listTools()).tools.map((t) => t.name).sort();
  const toolProblems = [];
  if (!isDeepStrictEqual(aliceTools, ['delete_note', 'search_notes', 'send_email'])) toolProblems.push(`alice sees ${aliceTools}`);
  if (!isDeepStrictEqual(bobTools, ['search_notes'])) toolProblems.push(`bob sees ${bobTools}`);
  report('tools', toolProblems, { alice: aliceTools, bob: bobTools });

  const allow = await alice.callTool({ name: 'search_notes', arguments: { query: 'bank' } });
  report('allow', allow.isError === true || !String(textOf(allow)).includes('Call the bank')
    ? [`unexpected result ${textOf(allow)}`] : [], allow);

  const deny = await bob.callTool({ name: 'send_email', arguments: { to: 'ada@example.org', body: 'hi' } });
  report('deny', decisionProblems(deny, { decision: 'deny', reason: 'scope_not_authorized', receipt_id: ULID }), deny);

  const confirm = await alice.callTool({ name: 'send_email', arguments: { to: 'ada@example.org', body: 'hi' } });
  report('confirm', decisionProblems(confirm, {
    decision: 'confirm',
    reason: 'scope_requires_user_confirmation',
    confirm_nonce: /.+/,
    confirm_expires_at: /^\d{4}-\d\d-\d\dT.*Z$/,
    receipt_id: ULID,
  }), confirm);

  let forged;
  try {
    forged = await bob.callTool({
      name: 'send_email', arguments: { to: 'x@example.org', body: 'hi', user_id: 'alice' } });
  } catch (e) {
    forged = { isError: true, content: [{ type: 'text', text: String(e.message ?? e) }] };
  }
  report('forged', forged.isError === true ? [] : ['the forged call was not refused'], forged);

  let anonymousProblems = ['connected without a token'];
  try {
    clients.push(await connect(null));
  } catch (e) {
    // The SDK's StreamableHTTPError carries the HTTP status as its code.
    anonymousProblems = e.code === 401 ? [] : [`unexpected error ${e.code} ${e.message ?? e}`];
  }
  report('anonymous', anonymousProblems, null);
} catch (e) {
  report('error', [String(e.stack ?? e)], null);
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
process.exit(failed === 0 ? 0 : 1);
