// Asks the user in their own MCP client: drives the agentauth guarded MCP tool server
// (dev.agentauth.examples.GuardedToolServer, streamable HTTP, started with --elicitation) with the
// official MCP TypeScript SDK, as a client that declared the `elicitation` capability, and checks
// what each answer of the user does to a `confirm` decision (decisions §19):
//   accept, approved -> the guard approves the nonce (via mcp_elicitation), re-checks, and the tool
//                       runs in the same tools/call;
//   accept, refused  -> (the form's box left unticked) the nonce is declined: an error result;
//   decline          -> the same;
//   cancel           -> the `confirm` result as without elicitation, its nonce still unresolved;
//   no capability    -> a client that did not declare `elicitation` is never asked: the `confirm`
//                       result.
// Each check calls delete_file with its own path: an approval covers one call (the guard binds the
// check to the path), so no check's answer can leak into another's.
//
// Usage:
//   node check-elicitation.mjs MCP_URL USER_ID
// MCP_URL is the server's streamable-HTTP endpoint (http://127.0.0.1:PORT/mcp); every request
// carries X-User-Id: USER_ID. USER_ID's authorization must grant delete_file with confirmation,
// and the server's API key must have the role tool_server (else the approval is refused and the
// guard falls back to the confirm result).
//
// The SDK is looked up in $AGENTAUTH_NODE_CACHE (where .ci/run installs it, default
// ~/.cache/agentauth-node), then beside this script (after `npm install` here).
//
// Output: one JSON line per check on standard output ({"check", "ok", "detail", "result",
// "elicitation"}: the tool result, and the elicitation/create parameters the client received or
// null), a summary on standard error; exit status 0 when every check passed, 1 when one failed, 2
// on a usage error or when the SDK is missing. What the service recorded (the receipt of the
// allow, the state of each nonce) is checked by the caller, TypeScriptClientIT.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const SDK = '@modelcontextprotocol/sdk';
const USER_HEADER = 'X-User-Id';

function loadSdk() {
  const here = dirname(fileURLToPath(import.meta.url));
  const bases = [
    process.env.AGENTAUTH_NODE_CACHE || join(homedir(), '.cache', 'agentauth-node'),
    here,
  ];
  for (const base of bases) {
    // ESM ignores NODE_PATH; resolve through a require rooted in the install prefix instead.
    const require = createRequire(join(base, 'noop.js'));
    try {
      const entry = require.resolve(`${SDK}/client/index.js`);
      const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
      return {
        base,
        version: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
        Client: require(`${SDK}/client/index.js`).Client,
        StreamableHTTPClientTransport:
          require(`${SDK}/client/streamableHttp.js`).StreamableHTTPClientTransport,
        ElicitRequestSchema: require(`${SDK}/types.js`).ElicitRequestSchema,
      };
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND' && e.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw e;
    }
  }
  return null;
}

function usage(message) {
  console.error(`check-elicitation: ${message}`);
  console.error('usage: node check-elicitation.mjs MCP_URL USER_ID');
  process.exit(2);
}

const argv = process.argv.slice(2);
if (argv.length !== 2) usage('expected 2 arguments');
const [mcpUrl, userId] = argv;
let endpoint;
try {
  endpoint = new URL(mcpUrl);
} catch {
  usage(`not a URL: ${mcpUrl}`);
}

const sdk = loadSdk();
if (!sdk) {
  console.error(`check-elicitation: ${SDK} is not installed (see .ci/run or run npm install here)`);
  process.exit(2);
}
console.error(`check-elicitation: ${SDK} ${sdk.version} from ${sdk.base}`);

let failed = 0;
let passed = 0;

function report(check, problems, result, elicitation) {
  const ok = problems.length === 0;
  if (ok) passed++;
  else failed++;
  console.log(JSON.stringify({
    check, ok, detail: ok ? null : problems.join('; '), result, elicitation: elicitation ?? null,
  }));
}

function textOf(result) {
  const block = (result?.content ?? []).find((c) => c.type === 'text');
  return block ? block.text : undefined;
}

/**
 * A connected client whose requests name `userId`. With `answer`, it declares the elicitation
 * capability (form mode) and answers every elicitation/create with answer(params); the parameters
 * it received are kept in `asked`.
 */
async function connect(answer) {
  const transport = new sdk.StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { [USER_HEADER]: userId } },
  });
  const capabilities = answer ? { elicitation: { form: {} } } : {};
  const client = new sdk.Client(
    { name: 'agentauth-check-elicitation', version: '1.0.0' }, { capabilities });
  const asked = [];
  if (answer) {
    client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  }
  await client.connect(transport);
  return { client, asked };
}

/** The name of the form's one boolean field: the user's "yes, run it" box. */
function booleanField(params) {
  const properties = params?.requestedSchema?.properties ?? {};
  const names = Object.keys(properties).filter((k) => properties[k]?.type === 'boolean');
  return names.length === 1 ? names[0] : undefined;
}

/** Problems with the elicitation/create parameters the guard sent; [] when well formed. */
function formProblems(asked, path) {
  if (asked.length !== 1) return [`the client was asked ${asked.length} times, expected once`];
  const params = asked[0];
  const problems = [];
  if (params.mode !== undefined && params.mode !== 'form') problems.push(`mode is ${params.mode}`);
  if (typeof params.message !== 'string' || params.message.length === 0) {
    problems.push('no message');
  } else {
    if (!params.message.includes('delete_file')) problems.push('the message does not name the tool');
    if (!params.message.includes(path)) problems.push('the message does not name the bound path');
  }
  if (params.requestedSchema?.type !== 'object') problems.push('requestedSchema is not an object');
  if (booleanField(params) === undefined) problems.push('the form has no single boolean field');
  return problems;
}

/** Problems with an error result carrying a decision object; [] when it is well formed. */
function decisionProblems(result, decision) {
  const problems = [];
  if (result.isError !== true) problems.push(`isError is ${result.isError}, expected true`);
  const sc = result.structuredContent;
  if (typeof sc !== 'object' || sc === null) return [...problems, 'no structuredContent'];
  let fromText;
  try {
    fromText = JSON.parse(textOf(result));
  } catch {
    problems.push('the text block is not JSON');
  }
  if (fromText !== undefined && !isDeepStrictEqual(fromText, sc)) {
    problems.push('the text block and structuredContent differ');
  }
  if (sc.decision !== decision) problems.push(`decision is ${sc.decision}, expected ${decision}`);
  if (typeof sc.confirm_nonce !== 'string' || sc.confirm_nonce.length === 0) {
    problems.push('no confirm_nonce');
  }
  return problems;
}

function ranProblems(result, path) {
  const problems = [];
  if (result.isError === true) problems.push(`isError: ${textOf(result)}`);
  if (!String(textOf(result)).startsWith(`Deleted ${path}`)) {
    problems.push(`text ${JSON.stringify(textOf(result))} is not the tool's`);
  }
  return problems;
}

/** Answers that tick (or leave unticked) the form's boolean field. */
function accept(approved) {
  return (params) => {
    const field = booleanField(params) ?? 'approved';
    return { action: 'accept', content: { [field]: approved } };
  };
}

const checks = [
  // [check, the user's answer (null: no elicitation capability), what must come back]
  ['accept', accept(true), (r, path) => ranProblems(r, path)],
  ['accept_unticked', accept(false), (r) => decisionProblems(r, 'deny')],
  ['decline', () => ({ action: 'decline' }), (r) => decisionProblems(r, 'deny')],
  ['cancel', () => ({ action: 'cancel' }), (r) => decisionProblems(r, 'confirm')],
  ['no_capability', null, (r) => decisionProblems(r, 'confirm')],
];

const clients = [];
try {
  for (const [check, answer, expect] of checks) {
    const path = `/tmp/agentauth-elicitation/${check}.txt`;
    try {
      const { client, asked } = await connect(answer);
      clients.push(client);
      const result = await client.callTool({ name: 'delete_file', arguments: { path } });
      const problems = expect(result, path);
      if (answer) problems.push(...formProblems(asked, path));
      else if (asked.length !== 0) problems.push('a client without the capability was asked');
      report(check, problems, result, asked[0]);
    } catch (e) {
      report(check, [String(e?.stack ?? e)], null);
    }
  }
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
}

console.error(`check-elicitation: ${passed} of ${passed + failed} checks ok`);
process.exit(failed === 0 ? 0 : 1);
