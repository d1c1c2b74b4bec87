// Drives the agentauth guarded MCP tool server (dev.agentauth.examples.GuardedToolServer, stdio)
// with the official MCP TypeScript SDK, a client agentauth did not write, and checks how the
// guard's decisions reach it:
//   allow    -> the tool runs;
//   deny     -> an error result (isError: true) whose structuredContent and text hold
//               decision, reason and receipt_id;
//   confirm  -> the same with confirm_nonce and confirm_prompt_hint; after the nonce is approved
//               (POST /v1/confirmations/{nonce}, standing in for the user's click) a retry runs;
//   no user_id / a user without a grant -> local denials (missing_user_id /
//               authorization_not_found, "local": true, no receipt).
//
// Usage:
//   node check-mapping.mjs AGENTAUTH_URL API_KEY USER_ID AUTHORIZATION_ID -- COMMAND [ARG...]
// COMMAND launches the server on stdio, e.g. `java -jar examples/target/agentauth-guarded-tools.jar`;
// the script appends --agentauth-url, --api-key and --grant USER_ID=AUTHORIZATION_ID. The
// authorization must grant read_calendar and delete_file (delete_file requiring confirmation) and
// not send_email.
//
// The SDK is looked up in $AGENTAUTH_NODE_CACHE (where .ci/run installs it, default
// ~/.cache/agentauth-node), then beside this script (after `npm install` here).
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
        StdioClientTransport: require(`${SDK}/client/stdio.js`).StdioClientTransport,
      };
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND' && e.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw e;
    }
  }
  return null;
}

function usage(message) {
  console.error(`check-mapping: ${message}`);
  console.error(
    'usage: node check-mapping.mjs AGENTAUTH_URL API_KEY USER_ID AUTHORIZATION_ID -- COMMAND [ARG...]');
  process.exit(2);
}

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
if (dashes !== 4 || argv.length < 6) usage('expected 4 arguments, then -- and the server command');
const [agentAuthUrl, apiKey, userId, authorizationId] = argv.slice(0, 4);
const [command, ...commandArgs] = argv.slice(5);

const sdk = loadSdk();
if (!sdk) {
  console.error(`check-mapping: ${SDK} is not installed (see .ci/run or run npm install here)`);
  process.exit(2);
}
console.error(`check-mapping: ${SDK} ${sdk.version} from ${sdk.base}`);

const transport = new sdk.StdioClientTransport({
  command,
  args: [
    ...commandArgs,
    '--transport', 'stdio',
    '--agentauth-url', agentAuthUrl,
    '--api-key', apiKey,
    '--grant', `${userId}=${authorizationId}`,
  ],
  stderr: 'inherit', // the server's log lines go to our standard error
});
const client = new sdk.Client({ name: 'agentauth-check-mapping', version: '1.0.0' });

let failed = 0;
let passed = 0;

function report(check, problems, result, detail) {
  const ok = problems.length === 0;
  if (ok) passed++;
  else failed++;
  console.log(JSON.stringify({ check, ok, detail: ok ? detail ?? null : problems.join('; '), result }));
}

function textOf(result) {
  const block = (result.content ?? []).find((c) => c.type === 'text');
  return block ? block.text : undefined;
}

/** Problems with an error result carrying a decision object; [] when it is well formed. */
function decisionProblems(result, expected) {
  const problems = [];
  if (result.isError !== true) problems.push(`isError is ${result.isError}, expected true`);
  const sc = result.structuredContent;
  if (typeof sc !== 'object' || sc === null) {
    problems.push('no structuredContent');
    return problems;
  }
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
    if (value === ULID) {
      if (typeof sc[key] !== 'string' || !ULID.test(sc[key])) problems.push(`${key} is not a ULID: ${sc[key]}`);
    } else if (value === String) {
      if (typeof sc[key] !== 'string' || sc[key].length === 0) problems.push(`${key} missing`);
    } else if (value === undefined) {
      if (key in sc) problems.push(`unexpected ${key}`);
    } else if (sc[key] !== value) {
      problems.push(`${key} is ${JSON.stringify(sc[key])}, expected ${JSON.stringify(value)}`);
    }
  }
  return problems;
}

function allowedProblems(result, prefix) {
  const problems = [];
  if (result.isError === true) problems.push(`isError: ${textOf(result)}`);
  const text = textOf(result);
  if (typeof text !== 'string' || !text.startsWith(prefix)) problems.push(`text ${JSON.stringify(text)} does not start with ${JSON.stringify(prefix)}`);
  return problems;
}

async function call(name, args) {
  return client.callTool({ name, arguments: args });
}

try {
  await client.connect(transport);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  const toolProblems = [];
  if (!isDeepStrictEqual(names, ['delete_file', 'read_calendar', 'send_email'])) {
    toolProblems.push(`tools are ${names}`);
  }
  for (const t of tools) {
    if (!t.inputSchema?.properties?.user_id) toolProblems.push(`${t.name} does not declare user_id`);
  }
  report('tools', toolProblems, names);

  const allow = await call('read_calendar', { user_id: userId });
  report('allow', allowedProblems(allow, 'Calendar for '), allow);

  const deny = await call('send_email', { user_id: userId, to: 'ada@example.org', subject: 'Hello' });
  report('deny', decisionProblems(deny, {
    decision: 'deny', reason: 'scope_not_authorized', receipt_id: ULID,
  }), deny);

  const path = '/tmp/agentauth-ts-check.txt';
  const confirm = await call('delete_file', { user_id: userId, path });
  const confirmProblems = decisionProblems(confirm, {
    decision: 'confirm',
    reason: 'scope_requires_user_confirmation',
    confirm_nonce: String,
    confirm_prompt_hint: String,
    receipt_id: ULID,
  });
  report('confirm', confirmProblems, confirm);

  if (confirmProblems.length === 0) {
    // Standing in for the user's explicit "Allow": the application resolves the nonce.
    const nonce = confirm.structuredContent.confirm_nonce;
    const response = await fetch(
      `${agentAuthUrl.replace(/\/$/, '')}/v1/confirmations/${encodeURIComponent(nonce)}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
    const approval = await response.json();
    const retry = await call('delete_file', { user_id: userId, path });
    const problems = allowedProblems(retry, `Deleted ${path}`);
    if (response.status !== 200 || approval.decision !== 'approved') {
      problems.unshift(`approval answered ${response.status} ${JSON.stringify(approval)}`);
    }
    report('confirm_then_approved', problems, retry);
  } else {
    report('confirm_then_approved', ['skipped: the confirm result was wrong'], null);
  }

  const missing = await call('read_calendar', {});
  report('missing_user_id', decisionProblems(missing, {
    decision: 'deny', reason: 'missing_user_id', local: true, receipt_id: undefined,
  }), missing);

  const unknown = await call('read_calendar', { user_id: 'user_without_grant' });
  report('authorization_not_found', decisionProblems(unknown, {
    decision: 'deny', reason: 'authorization_not_found', local: true, receipt_id: undefined,
  }), unknown);
} catch (e) {
  failed++;
  console.log(JSON.stringify({ check: 'session', ok: false, detail: String(e?.stack ?? e), result: null }));
} finally {
  await client.close().catch(() => {});
}

console.error(`check-mapping: ${passed} of ${passed + failed} checks ok`);
process.exit(failed === 0 ? 0 : 1);
