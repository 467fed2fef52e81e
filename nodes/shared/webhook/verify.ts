/** Verifying one delivery: the signing credential, the signature header(s), the exact raw body; fails closed. */
import type { ICredentialDataDecryptedObject, IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { matchSecret, signatureCandidates, type HeaderBag, type SecretMatch } from './signature';
import { SIGNING_CREDENTIAL, activeSecrets } from './signing-credential';
import { keyOfSignedBody, matchKey } from './webhook-id';
import { requestRawBody } from '../n8n-compat';

// n8n queries and decrypts a credential on every getCredentials: kept per process for the TTL, so a
// changed secret takes effect within it (401s meanwhile are retried).
export const CREDENTIAL_TTL_MS = 5000;

const MAX_ENTRIES = 100;

export interface SigningFacts {
	secret: string;
	signatureHeader: string;
	previousSecret?: string;
}

const entries = new Map<string, { facts: SigningFacts; readAt: number }>();
// reads under way: deliveries that find the entry expired together share one read
const reading = new Map<string, Promise<SigningFacts>>();

export function cachedCredential(id: string | undefined, now: number): SigningFacts | undefined {
	if (id === undefined || id === '') return undefined;
	const entry = entries.get(id);
	if (entry === undefined) return undefined;
	const age = now - entry.readAt;
	if (age < 0 || age >= CREDENTIAL_TTL_MS) {
		entries.delete(id);
		return undefined;
	}
	return { ...entry.facts };
}

export function rememberCredential(id: string | undefined, facts: SigningFacts, now: number): void {
	if (id === undefined || id === '' || facts.secret === '') return;
	entries.delete(id);
	if (entries.size >= MAX_ENTRIES) {
		const oldest = entries.keys().next().value;
		if (oldest !== undefined) entries.delete(oldest);
	}
	entries.set(id, { facts: { ...facts }, readAt: now });
}

/** The cached facts, else one read that every caller asking meanwhile shares; `read` must not throw. */
export async function readThrough(
	id: string | undefined,
	read: () => Promise<SigningFacts>,
): Promise<SigningFacts> {
	const cached = cachedCredential(id, Date.now());
	if (cached !== undefined) return cached;
	if (id === undefined || id === '') return await read();
	let pending = reading.get(id);
	if (pending === undefined) {
		pending = read()
			.then((facts) => {
				rememberCredential(id, facts, Date.now());
				return facts;
			})
			.finally(() => reading.delete(id));
		reading.set(id, pending);
	}
	return { ...(await pending) };
}

/** Whether an entry this process uses is past half its TTL: worth re-reading before it expires. */
export function dueForRefresh(id: string | undefined, now: number): boolean {
	const entry = id ? entries.get(id) : undefined;
	if (entry === undefined) return false;
	const age = now - entry.readAt;
	return age >= CREDENTIAL_TTL_MS / 2 && age < CREDENTIAL_TTL_MS;
}

export interface ResponseLike {
	status(code: number): ResponseLike;
	send(body: unknown): ResponseLike;
	json(body: unknown): unknown;
	end(): unknown;
	once?(event: 'close', listener: () => void): unknown;
	setHeader?(name: string, value: string): unknown;
}

type CredentialReader = Pick<IWebhookFunctions, 'getNode'> & {
	getCredentials<T extends object = ICredentialDataDecryptedObject>(type: string): Promise<T>;
};

const credentialId = (ctx: CredentialReader) =>
	ctx.getNode().credentials?.[SIGNING_CREDENTIAL]?.id ?? undefined;

/** Reads and decrypts the signing credential through n8n; a failed read gives no secret (fails closed). */
async function readFacts(ctx: CredentialReader): Promise<SigningFacts> {
	const credentials = await ctx
		.getCredentials<IDataObject>(SIGNING_CREDENTIAL)
		.catch((): IDataObject => ({}));
	const text = (value: unknown) => (typeof value === 'string' ? value : '');
	const { secret, signatureHeader, previousSecret } = credentials;
	const facts: SigningFacts = { secret: text(secret), signatureHeader: text(signatureHeader) };
	// an empty previous secret is none
	if (text(previousSecret) !== '') facts.previousSecret = text(previousSecret);
	return facts;
}

/** The signing credential: from the short-lived process memory, else read (and decrypted) by n8n. */
async function signingFacts(context: CredentialReader): Promise<SigningFacts> {
	return await readThrough(credentialId(context), async () => await readFacts(context));
}

/** From an execution, where n8n reads a credential without a new expression isolate: keeps the webhook path's entry fresh. */
export async function refreshSigningFacts(context: CredentialReader): Promise<void> {
	const id = credentialId(context);
	if (!dueForRefresh(id, Date.now())) return;
	rememberCredential(id, await readFacts(context), Date.now());
}

/** A delivery whose signature matched: its exact bytes, where the signature was found, which secret. */
export interface VerifiedDelivery extends SecretMatch {
	rawBody: Buffer;
	/** Its keys under each active secret, current first, for a delivery without a signed id. */
	bodyKeys: () => string[];
	/** A value's match keys under each active secret, current first (webhook-id.ts matchKey). */
	matchKeys: (value: string) => string[];
	headers: HeaderBag;
	signatureHeader: string;
}

/** The active signing secrets, current first (none when the credential cannot be read). */
export async function activeSigningSecrets(context: CredentialReader): Promise<string[]> {
	const { secret, previousSecret } = await signingFacts(context);
	return activeSecrets(secret, previousSecret);
}

/** The delivery when one of its signatures matches the current or previous secret; every candidate counts. */
export async function verifiedDelivery(
	context: IWebhookFunctions,
): Promise<VerifiedDelivery | undefined> {
	const req = context.getRequestObject() as unknown as { headers: HeaderBag };
	const { secret, signatureHeader, previousSecret } = await signingFacts(context);
	const secrets = activeSecrets(secret, previousSecret);
	if (secrets.length === 0) return undefined;
	const headers: HeaderBag = req.headers ?? {};
	const candidates = signatureCandidates(headers, signatureHeader);
	if (candidates.length === 0) return undefined;
	const rawBody = await requestRawBody(req);
	const match = rawBody === undefined ? null : matchSecret(rawBody, candidates, secrets);
	if (rawBody === undefined || match === null) return undefined;
	const bodyKeys = () => secrets.map((secret) => keyOfSignedBody(rawBody, secret));
	const matchKeys = (value: string) => secrets.map((secret) => matchKey(value, secret));
	return { rawBody, bodyKeys, matchKeys, headers, signatureHeader, ...match };
}
