// Drives the example Spring AI MCP server (examples-spring-ai, streamable HTTP with bearer tokens)
// with the official MCP TypeScript SDK, a client agentauth did not write, and checks what the
// starter's guard shows it. "alice" and "bob" are the users of two bearer tokens, granted as in the
// example's tests (AgentAuthTestServer): alice may read notes, send email after confirming and
// delete notes after an escalation; bob may only read notes.
//   tools         -> alice sees search_notes, send_email and delete_note; bob only search_notes
//                    (tools/list filtered by each user's active authorization);
//   allow         -> alice's search_notes runs;
//   deny          -> bob's send_email is an error result whose structuredContent and text hold
//                    decision, reason and receipt_id;
//   confirm       -> alice's send_email carries confirm_nonce and confirm_expires_at (the nonce
//                    is left unanswered);
//   forged        -> bob naming alice gets nowhere: a user_id argument is refused (the tool's
//                    schema has none), and a user id in the request's _meta is ignored: the call is
//                    denied as bob (scope_not_authorized), never asked to confirm as alice;
//   anonymous     -> a client without a token cannot connect (HTTP 401);
//   unknown_token -> nor can one with a token the server does not know (HTTP 401).
// With a fifth argument, the token of a user whose delete_note needs a confirmation, a client that
// declares the elicitation capability answers the server's elicitation/create itself:
//   elicit_accept  -> answering "approve: true" runs delete_note n1 in the same call, and the form
//                     named the tool and the bound argument (id: n1);
//   elicit_decline -> declining delete_note n2 is a deny with reason confirmation_declined;
//   elicit_cancel  -> cancelling delete_note n3 is the confirm result with its nonce.
// Otherwise it never calls delete_note and approves nothing, so it leaves the grants as it found
// them.
//
// Usage: node check-spring.mjs MCP_URL [ALICE_TOKEN BOB_TOKEN ALICE_USER_ID [CONFIRMER_TOKEN]]
//   e.g. node check-spring.mjs http://127.0.0.1:8080/mcp
// The defaults are application.yml's demo tokens and users: alice-token, bob-token and alice.
// The SDK is looked up in $AGENTAUTH_NODE_CACHE (where .ci/run installs it, at the version of
// examples/ts-client/package.json; default ~/.cache/agentauth-node), then beside this script
// (after `npm install` here). package.json here pins the same version (SpringTypeScriptClientIT
// checks that the two pins are equal).
//
// Output: one JSON line per check on standard output ({"check", "ok", "detail", "result"}), a
// summary on standard error; exit status 0 when every check passed, 1 when one failed, 2 on a
// usage error or when the SDK is missing.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const SDK = '@modelcontextprotocol/sdk';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const NON_EMPTY = /./;
const HERE = dirname(fileURLToPath(import.meta.url));

function loadSdk() {
  const bases = [process.env.AGENTAUTH_NODE_CACHE || join(homedir(), '.cache', 'agentauth-node'), HERE];
  for (const base of bases) {
    // ESM ignores NODE_PATH; resolve through a require rooted in the install prefix instead.
    const require = createRequire(join(base, 'noop.js'));
    try {
      const entry = require.resolve(`${SDK}/client/index.js`);
      const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
      const http = require(`${SDK}/client/streamableHttp.js`);
      return {
        base,
        version: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
        Client: require(`${SDK}/client/index.js`).Client,
        ElicitRequestSchema: require(`${SDK}/types.js`).ElicitRequestSchema,
        StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
        StreamableHTTPError: http.StreamableHTTPError,
      };
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND' && e.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw e;
    }
  }
  return null;
}

const argv = process.argv.slice(2);
if (![1, 4, 5].includes(argv.length) || !/^https?:\/\//.test(argv[0])) {
  console.error('check-spring: expected the MCP endpoint URL, optionally followed by two tokens and a user id (and a confirming user\'s token)');
  console.error('usage: node check-spring.mjs MCP_URL [ALICE_TOKEN BOB_TOKEN ALICE_USER_ID [CONFIRMER_TOKEN]]');
  process.exit(2);
}
const mcpUrl = new URL(argv[0]);
const [aliceToken, bobToken, aliceUser] =
  argv.length >= 4 ? argv.slice(1, 4) : ['alice-token', 'bob-token', 'alice'];
const confirmerToken = argv.length === 5 ? argv[4] : null;

const sdk = loadSdk();
if (!sdk) {
  console.error(`check-spring: ${SDK} is not installed (see .ci/run or run npm install here)`);
  process.exit(2);
}
const pinned = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).dependencies[SDK];
console.error(`check-spring: ${SDK} ${sdk.version} from ${sdk.base}`);
if (sdk.version !== pinned) {
  console.error(`check-spring: warning: written against ${SDK} ${pinned}, found ${sdk.version}`);
}

let failed = 0;
let passed = 0;

function report(check, problems, result, detail) {
  const ok = problems.length === 0;
  if (ok) passed++;
  else failed++;
  console.log(JSON.stringify({ check, ok, detail: ok ? detail ?? null : problems.join('; '), result }));
}

/**
 * A connected client sending `Authorization: Bearer token` with every request (none if null). With
 * `elicit`, it declares the elicitation capability and answers each elicitation/create with it.
 */
async function connect(token, elicit) {
  const headers = token === null ? {} : { Authorization: `Bearer ${token}` };
  const transport = new sdk.StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } });
  const client = elicit
    ? new sdk.Client({ name: 'agentauth-check-spring', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    : new sdk.Client({ name: 'agentauth-check-spring', version: '1.0.0' });
  if (elicit) client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => elicit(request.params));
  await client.connect(transport);
  return client;
}

const textOf = (result) => (result.content ?? []).find((c) => c.type === 'text')?.text;

/** Problems with an error result carrying a decision object; [] when it is well formed. */
function decisionProblems(result, expected) {
  const problems = [];
  if (result.isError !== true) problems.push(`isError is ${result.isError}, expected true`);
  const sc = result.structuredContent;
  if (typeof sc !== 'object' || sc === null) return [...problems, `no structuredContent (text: ${textOf(result)})`];
  let fromText;
  try {
    fromText = JSON.parse(textOf(result));
  } catch {
    problems.push('the text block is not JSON');
  }
  if (fromText !== undefined && !isDeepStrictEqual(fromText, sc)) {
    problems.push('the text block and structuredContent differ');
  }
  for (const [key, value] of Object.entries(expected)) {
    if (value instanceof RegExp) {
      if (typeof sc[key] !== 'string' || !value.test(sc[key])) problems.push(`${key} is ${JSON.stringify(sc[key])}`);
    } else if (sc[key] !== value) {
      problems.push(`${key} is ${JSON.stringify(sc[key])}, expected ${JSON.stringify(value)}`);
    }
  }
  return problems;
}

/** [] when connecting with `token` fails with HTTP 401, else what happened instead. */
async function refusedWith401(token, clients) {
  try {
    clients.push(await connect(token));
    return ['connected'];
  } catch (e) {
    if (!(e instanceof sdk.StreamableHTTPError)) return [`unexpected error ${e?.stack ?? e}`];
    return e.code === 401 ? [] : [`HTTP ${e.code} (${e.message}), expected 401`];
  }
}

const email = { to: 'ada@example.org', body: 'hi' };
const clients = [];
try {
  const alice = await connect(aliceToken);
  clients.push(alice);
  const bob = await connect(bobToken);
  clients.push(bob);

  const aliceTools = (await alice.listTools()).tools.map((t) => t.name).sort();
  const bobTools = (await bob.listTools()).tools.map((t) => t.name).sort();
  const toolProblems = [];
  if (!isDeepStrictEqual(aliceTools, ['delete_note', 'search_notes', 'send_email'])) toolProblems.push(`alice sees ${aliceTools}`);
  if (!isDeepStrictEqual(bobTools, ['search_notes'])) toolProblems.push(`bob sees ${bobTools}`);
  report('tools', toolProblems, { alice: aliceTools, bob: bobTools });

  const allow = await alice.callTool({ name: 'search_notes', arguments: { query: 'bank' } });
  const allowProblems = [];
  if (allow.isError === true) allowProblems.push(`isError: ${textOf(allow)}`);
  if (!String(textOf(allow)).includes('Call the bank')) allowProblems.push(`text is ${JSON.stringify(textOf(allow))}`);
  report('allow', allowProblems, allow);

  const deny = await bob.callTool({ name: 'send_email', arguments: email });
  report('deny', decisionProblems(deny, {
    decision: 'deny', reason: 'scope_not_authorized', receipt_id: ULID,
  }), deny);

  const confirm = await alice.callTool({ name: 'send_email', arguments: email });
  report('confirm', decisionProblems(confirm, {
    decision: 'confirm',
    reason: 'scope_requires_user_confirmation',
    confirm_nonce: NON_EMPTY,
    confirm_expires_at: INSTANT,
    receipt_id: ULID,
  }), confirm);

  // bob names alice's user id, first as a tool argument: the tool's input schema declares no
  // user_id, so the server refuses the call before the tool (an MCP error or an error result, both
  // naming user_id); a guard decision there, if any, must still be bob's denial.
  const forgedProblems = [];
  let argument;
  try {
    argument = await bob.callTool({ name: 'send_email', arguments: { ...email, user_id: aliceUser } });
  } catch (e) {
    argument = { isError: true, content: [{ type: 'text', text: String(e?.message ?? e) }], thrown: true };
  }
  if (argument.isError !== true) {
    forgedProblems.push(`argument: not refused: ${textOf(argument)}`);
  } else if (argument.structuredContent?.decision !== undefined) {
    forgedProblems.push(...decisionProblems(argument, { decision: 'deny', reason: 'scope_not_authorized' })
      .map((p) => `argument: ${p}`));
  } else if (!String(textOf(argument)).includes('user_id')) {
    forgedProblems.push(`argument: the refusal does not name user_id: ${textOf(argument)}`);
  }
  // Then in the request's _meta, which no schema checks: the guard takes the user from the
  // authenticated principal, so this is bob's call, and bob has no email.send.
  const meta = await bob.callTool({
    name: 'send_email',
    arguments: email,
    _meta: { user_id: aliceUser, 'dev.agentauth/user_id': aliceUser },
  });
  forgedProblems.push(...decisionProblems(meta, {
    decision: 'deny', reason: 'scope_not_authorized', receipt_id: ULID,
  }).map((p) => `meta: ${p}`));
  report('forged', forgedProblems, { argument, meta });

  if (confirmerToken !== null) {
    // One client; each check sets the answer its elicitation handler gives and records the forms.
    let answer;
    const asked = [];
    const confirmer = await connect(confirmerToken, async (params) => {
      asked.push(params);
      return answer;
    });
    clients.push(confirmer);

    answer = { action: 'accept', content: { approve: true } };
    const accepted = await confirmer.callTool({ name: 'delete_note', arguments: { id: 'n1' } });
    const acceptProblems = [];
    if (accepted.isError === true) acceptProblems.push(`isError: ${textOf(accepted)}`);
    if (!String(textOf(accepted)).includes('deleted n1')) acceptProblems.push(`text is ${JSON.stringify(textOf(accepted))}`);
    if (asked.length !== 1) acceptProblems.push(`asked ${asked.length} times, expected once`);
    const form = asked[0] ?? {};
    for (const part of ['delete_note', 'id: n1']) {
      if (!String(form.message).includes(part)) acceptProblems.push(`the form's message lacks ${part}: ${JSON.stringify(form.message)}`);
    }
    if (form.requestedSchema?.properties?.approve?.type !== 'boolean') acceptProblems.push(`no boolean approve field: ${JSON.stringify(form.requestedSchema)}`);
    report('elicit_accept', acceptProblems, { result: accepted, form });

    answer = { action: 'decline' };
    const declined = await confirmer.callTool({ name: 'delete_note', arguments: { id: 'n2' } });
    const declineProblems = decisionProblems(declined, {
      decision: 'deny', reason: 'confirmation_declined', confirm_nonce: NON_EMPTY, message: NON_EMPTY,
    });
    if (asked.length !== 2) declineProblems.push(`asked ${asked.length} times in all, expected 2`);
    report('elicit_decline', declineProblems, declined);

    answer = { action: 'cancel' };
    const cancelled = await confirmer.callTool({ name: 'delete_note', arguments: { id: 'n3' } });
    const cancelProblems = decisionProblems(cancelled, {
      decision: 'confirm', reason: 'scope_requires_user_confirmation', confirm_nonce: NON_EMPTY, message: NON_EMPTY,
    });
    if (asked.length !== 3) cancelProblems.push(`asked ${asked.length} times in all, expected 3`);
    report('elicit_cancel', cancelProblems, cancelled);
  }

  report('anonymous', await refusedWith401(null, clients), null);
  report('unknown_token', await refusedWith401('mallory-token', clients), null);
} catch (e) {
  failed++;
  console.log(JSON.stringify({ check: 'session', ok: false, detail: String(e?.stack ?? e), result: null }));
} finally {
  // End each session (HTTP DELETE) before closing: the server then closes its SSE stream at once
  // rather than holding it until it notices the connection is gone.
  for (const c of clients) {
    await c.transport?.terminateSession().catch(() => {});
    await c.close().catch(() => {});
  }
}

console.error(`check-spring: ${passed} of ${passed + failed} checks ok`);
process.exit(failed === 0 ? 0 : 1);
