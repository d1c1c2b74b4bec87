// The agentauth quickstart story through a client that agentauth did not write: its types are
// generated from the server's OpenAPI document by openapi-typescript (schema.d.ts, from
// docs/openapi.json or GET /openapi.json), its calls go through openapi-fetch, and tsc checks it
// in strict mode. It grants an agent three scopes (one needs the user's confirmation, one an
// approver's), then checks: allow, deny, confirm then the user's approval, escalate then the
// approver's, a request the server refuses, revocation; then it lists the authorization's
// receipts, fetches one signed receipt and the workspace's public keys, and verifies the
// receipt's Ed25519 signature with WebCrypto.
//
// Usage (after `npm run generate && npm run build`, or as OpenApiTypeScriptClientIT runs it):
//   node out/quickstart.js BASE_URL API_KEY WORKSPACE_ID
// Output: one JSON line per step on standard output ({"check", "ok", "detail", "data"}); exit
// status 0 when every step passed, 1 when one failed, 2 on a usage error.

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

// The only Node.js global used; declared here so that no @types/node is needed.
declare const process: { argv: string[]; exitCode?: number | string | undefined };

type CheckResult = components["schemas"]["CheckResult"];
type SignedReceipt = components["schemas"]["SignedReceipt"];
type WorkspaceKey = components["schemas"]["WorkspaceKey"];

const USER = "user_8821";
const AGENT = "outreach_agent";

const [baseUrl, apiKey, workspaceId] = process.argv.slice(2);
if (!baseUrl || !apiKey || !workspaceId) {
  console.error("usage: node out/quickstart.js BASE_URL API_KEY WORKSPACE_ID");
  process.exitCode = 2;
} else {
  process.exitCode = (await story(baseUrl, apiKey, workspaceId)) ? 0 : 1;
}

/** Runs every step; true when all passed. A step that throws ends the story as failed. */
async function story(baseUrl: string, apiKey: string, workspaceId: string): Promise<boolean> {
  // @start region="client"
  const agentauth = createClient<paths>({
    baseUrl, // @replace substring="baseUrl," replacement='baseUrl: "http://127.0.0.1:8080",'
    headers: { Authorization: `Bearer ${apiKey}` }, // an API key's secret, sk_...
  });
  // @end region="client"
  let failures = 0;
  const step = (check: string, ok: boolean, detail: string, data?: unknown): void => {
    if (!ok) failures++;
    console.log(JSON.stringify({ check, ok, detail, data }));
  };

  try {
    // 1. The user grants the agent three scopes for 30 days.
    const grant = await agentauth.POST("/v1/authorizations", {
      body: {
        user_id: USER,
        agent_id: AGENT,
        scopes: [
          { name: "email.send", constraints: { max_per_day: 2 } },
          { name: "files.delete" },
          { name: "payments.send" },
        ],
        requires_confirm_for: ["files.delete"],
        requires_escalation_for: ["payments.send"],
        escalation_targets: { "payments.send": "finance" },
        expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
    });
    const authorization = answer(grant, "POST /v1/authorizations");
    const id = authorization.authorization_id;
    step(
      "grant",
      grant.response.status === 201 &&
        authorization.user_id === USER &&
        authorization.agent_id === AGENT &&
        authorization.scopes.map((s) => s.name).join() === "email.send,files.delete,payments.send",
      `authorization ${id} for ${USER} / ${AGENT}`,
      { authorization_id: id },
    );

    const check = async (scope: string, resource: string | null): Promise<CheckResult> => {
      const checked = await agentauth.POST("/v1/check", {
        body: { authorization_id: id, scopes: [scope], resource },
      });
      return need(answer(checked, "POST /v1/check").results[scope], `results["${scope}"]`);
    };

    // 2. Allow, and a scope the user never granted.
    const allowed = await check("email.send", "mailbox:alice");
    step(
      "allow",
      allowed.decision === "allow" && allowed.reason === "authorization_granted_scope_active",
      `email.send: ${allowed.decision} / ${allowed.reason}`,
    );
    const denied = await check("crm.export", null);
    step(
      "deny",
      denied.decision === "deny" && denied.reason === "scope_not_authorized",
      `crm.export: ${denied.decision} / ${denied.reason}`,
    );

    // 3. Confirm: the user approves the nonce, the agent checks again.
    // @start region="confirm"
    const { data, error } = await agentauth.POST("/v1/check", {
      body: {
        authorization_id: id,
        scopes: ["files.delete"],
        resource: "file:/tmp/report-draft.txt",
      },
    });
    if (!data) throw new Error(`${error?.code}: ${error?.detail}`); // a typed problem+json body
    const result = data.results["files.delete"];
    if (result?.decision === "confirm") {
      // Narrowed by `decision`: only a confirm result carries a nonce.
      console.error(`ask the user: ${result.confirm_prompt_hint}?`);
      await agentauth.POST("/v1/confirmations/{nonce}", {
        params: { path: { nonce: result.confirm_nonce } },
        body: { approved: true, ttl_seconds: 60 }, // only after the user said yes
      });
    }
    // @end region="confirm"
    const afterConfirm = await check("files.delete", "file:/tmp/report-draft.txt");
    step(
      "confirm",
      result?.decision === "confirm" &&
        result.reason === "scope_requires_user_confirmation" &&
        result.confirm_prompt_hint.length > 0 &&
        afterConfirm.decision === "allow" &&
        afterConfirm.reason === "authorization_granted_via_confirmation",
      `files.delete: ${result?.decision}, the user approved, then` +
        ` ${afterConfirm.decision} / ${afterConfirm.reason}`,
    );

    // 4. Escalate: finance approves once.
    const escalate = await check("payments.send", "invoice:INV-1042");
    if (escalate.decision !== "escalate") {
      throw new Error(`payments.send: expected escalate, got ${escalate.decision}`);
    }
    const resolution = await agentauth.POST("/v1/escalations/{id}/resolve", {
      params: { path: { id: escalate.escalation_id } },
      body: {
        resolution: "approved",
        resolved_by: "approver_finance_17",
        note: "invoice matches PO-77",
      },
    });
    const resolved = answer(resolution, "POST /v1/escalations/{id}/resolve");
    const afterApproval = await check("payments.send", "invoice:INV-1042");
    const approvalUsed = await check("payments.send", "invoice:INV-1042");
    step(
      "escalate",
      escalate.escalation_to === "finance" &&
        resolved.status === "approved" &&
        resolved.resolved_by === "approver_finance_17" &&
        afterApproval.decision === "allow" &&
        afterApproval.reason === "authorization_granted_via_escalation" &&
        approvalUsed.decision === "escalate",
      `payments.send: escalate to ${escalate.escalation_to ?? "nobody"}, approved, then` +
        ` ${afterApproval.decision}, then ${approvalUsed.decision} (one approval, one action)`,
    );

    // 5. A request the server refuses: a typed problem naming the field.
    const refused = await agentauth.POST("/v1/check", {
      body: { authorization_id: id, scopes: [] },
    });
    const problem = refused.error;
    step(
      "invalid_request",
      refused.response.status === 400 &&
        refused.data === undefined &&
        problem?.code === "invalid_request" &&
        (problem.errors ?? []).some((e) => e.field === "scopes"),
      `empty scopes: ${refused.response.status} ${problem?.code ?? "(no problem)"}: ${problem?.detail ?? ""}`,
      problem,
    );

    // 6. The user revokes; the agent is denied from then on.
    const revocation = await agentauth.DELETE("/v1/authorizations/{id}", {
      params: { path: { id } },
      body: { revoked_by: USER, notes: "quickstart done" },
    });
    const revoked = answer(revocation, "DELETE /v1/authorizations/{id}");
    const afterRevoke = await check("email.send", "mailbox:alice");
    step(
      "revoke",
      revoked.authorization_id === id &&
        afterRevoke.decision === "deny" &&
        afterRevoke.reason === "authorization_revoked",
      `revoked at ${revoked.revoked_at}; email.send: ${afterRevoke.decision} / ${afterRevoke.reason}`,
    );

    // 7. Every receipt of the authorization, in issuance order.
    const listed = await agentauth.GET("/v1/receipts", {
      params: { query: { authorization_id: id, limit: 100 } },
    });
    const receipts = answer(listed, "GET /v1/receipts").receipts;
    const decisions = receipts.map((r) => r.decision);
    const expected = [
      "authorization_granted",
      "allow",
      "deny",
      "confirm",
      "allow",
      "escalate",
      "escalation_approved",
      "allow",
      "escalate",
      "authorization_revoked",
      "deny",
    ];
    step(
      "receipts",
      decisions.join() === expected.join() &&
        receipts.every((r) => r.authorization_id === id) &&
        receipts[0]?.event === "authorization.create",
      `${receipts.length} receipts: ${decisions.join(" ")}`,
      { count: receipts.length, decisions },
    );

    // 8. One signed receipt, and the workspace's public keys (no credential needed).
    const receiptId = need(receipts[1], "the allow receipt").receipt_id;
    const signed = await signedReceipt(agentauth, receiptId);
    const keysAnswer = await createClient<paths>({ baseUrl }).GET("/v1/workspaces/{id}/keys", {
      params: { path: { id: workspaceId } },
    });
    const keys = answer(keysAnswer, "GET /v1/workspaces/{id}/keys");
    const key = keys.keys.find((k) => k.key_id === signed.signature.key_id);
    step(
      "keys",
      keys.workspace_id === workspaceId && key !== undefined && key.alg === "Ed25519",
      `${keys.keys.length} key(s) of ${keys.workspace_id}; receipt ${receiptId} names ${signed.signature.key_id}`,
      { key_ids: keys.keys.map((k) => k.key_id) },
    );

    // 9. Offline verification: Ed25519 over the canonical form, and a tampered copy fails.
    const valid = await verify(signed, need(key, "the signing key"));
    const tampered = await verify({ ...signed, resource: "mailbox:mallory" }, need(key, "key"));
    step(
      "verify",
      valid && !tampered && signed.decision === "allow" && signed.workspace_id === workspaceId,
      `receipt ${receiptId}: signature ${valid ? "valid" : "INVALID"}; tampered copy ${tampered ? "ACCEPTED" : "rejected"}`,
    );
  } catch (e) {
    step("story", false, e instanceof Error ? e.message : String(e));
  }
  return failures === 0;
}

/** A successful answer's body, or an error naming the call, its status and the problem. */
function answer<T>(
  result: { data?: T; error?: unknown; response: Response },
  call: string,
): T {
  if (result.data === undefined) {
    throw new Error(`${call} answered ${result.response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

function need<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}

/** GET /v1/receipts/{id} until the receipt is signed (signing is asynchronous), for 10 s at most. */
async function signedReceipt(
  agentauth: Client<paths>,
  receiptId: string,
): Promise<SignedReceipt> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lookup = answer(
      await agentauth.GET("/v1/receipts/{id}", { params: { path: { id: receiptId } } }),
      "GET /v1/receipts/{id}",
    );
    // Discriminated by `status`: only a signed lookup has `receipt`.
    if (lookup.status === "signed") return lookup.receipt;
    if (Date.now() > deadline) throw new Error(`receipt ${receiptId} still pending after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Verifies a receipt's signature: Ed25519 over the canonical JSON of the receipt without it. */
async function verify(receipt: SignedReceipt, key: WorkspaceKey): Promise<boolean> {
  const { signature, ...unsigned } = receipt;
  const publicKey = await crypto.subtle.importKey(
    "raw",
    base64url(key.public_key),
    { name: "Ed25519" },
    false,
    ["verify"],
  );
  return crypto.subtle.verify(
    { name: "Ed25519" },
    publicKey,
    base64url(signature.value),
    new TextEncoder().encode(canonical(unsigned)),
  );
}

/**
 * The receipt format's canonical JSON: no whitespace, object keys sorted by UTF-16 code units,
 * strings escaping only `"`, `\` and U+0000-U+001F (as lower-case \u00xx), integers only.
 */
function canonical(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`not a canonical number: ${value}`);
    return String(value);
  }
  if (typeof value === "string") return canonicalString(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object") {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([k, v]) => `${canonicalString(k)}:${canonical(v)}`).join(",")}}`;
  }
  throw new Error(`not JSON: ${typeof value}`);
}

function canonicalString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

function base64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Never called: each statement is a mistake the generated types reject at compile time. tsc
 * fails if one of them compiles after all, since its `@ts-expect-error` would then be unused.
 */
export async function mistakesTheGeneratedTypesCatch(baseUrl: string): Promise<void> {
  const agentauth = createClient<paths>({ baseUrl });
  // @ts-expect-error a check names its scopes in `scopes`, an array; `scope` is an unknown member
  await agentauth.POST("/v1/check", { body: { authorization_id: "auth_1", scope: "email.send" } });
  // @ts-expect-error the server has no such path
  await agentauth.GET("/v1/authorisations", {});
  await agentauth.POST("/v1/escalations/{id}/resolve", {
    params: { path: { id: "esc_1" } },
    // @ts-expect-error an escalation resolves as `approved` or `rejected`
    body: { resolution: "yes" },
  });
  const result = (await agentauth.POST("/v1/check", {
    body: { authorization_id: "auth_1", scopes: ["email.send"] },
  })).data?.results["email.send"];
  if (result !== undefined && result.decision === "deny") {
    // @ts-expect-error only a confirm result carries a nonce
    console.log(result.confirm_nonce);
  }
}
