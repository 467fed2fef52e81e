/**
 * Verifying one delivery of the consent flow service, shared by the Consent Flow Trigger and the
 * Consent Flow node's Create and Wait for Outcome (which receives the same deliveries on its
 * resume URL): the signing credential (kept for a few seconds per process), the signature
 * header(s) and the exact raw body. Everything fails closed.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { cachedCredential, rememberCredential, type SigningFacts } from './credential-cache';
import { signatureCandidates, type HeaderBag } from './signature';
import { activeSecrets, matchSecret, type SecretMatch } from './rotation';
import { requestRawBody } from '../n8n-compat';

/** The part of n8n's (express) request read here; the raw body comes through n8n-compat.ts. */
export interface RequestLike {
	headers: HeaderBag;
}

/** The parts of n8n's (express) response the nodes use. */
export interface ResponseLike {
	status(code: number): ResponseLike;
	send(body: unknown): ResponseLike;
	json(body: unknown): unknown;
	end(): unknown;
	statusCode?: number;
	writableFinished?: boolean;
	once?(event: 'close', listener: () => void): unknown;
	setHeader?(name: string, value: string): unknown;
}

export function unauthorized(res: ResponseLike): IWebhookResponseData {
	res.status(401).send('Unauthorized').end();
	return { noWebhookResponse: true };
}

/**
 * The answer to a delivery that reaches a stopping process: 503, retry (on a new connection, so
 * at another process or the restarted one). Nothing is remembered or started.
 */
export function shuttingDown(res: ResponseLike): IWebhookResponseData {
	res.setHeader?.('retry-after', '1');
	res.setHeader?.('connection', 'close');
	res.status(503).json({
		received: false,
		status: 'shutting-down',
		message: 'This n8n process is stopping and did not take the delivery. Send it again.',
	});
	return { noWebhookResponse: true };
}

/** The signing credential: from the short-lived process memory, else read (and decrypted) by n8n. */
export async function signingFacts(context: IWebhookFunctions): Promise<SigningFacts> {
	const id = context.getNode().credentials?.consentFlowWebhookSigningApi?.id ?? undefined;
	const cached = cachedCredential(id, Date.now());
	if (cached !== undefined) return cached;
	let credentials: IDataObject | undefined;
	try {
		credentials = await context.getCredentials<IDataObject>('consentFlowWebhookSigningApi');
	} catch {
		credentials = undefined;
	}
	const facts: SigningFacts = {
		secret: typeof credentials?.secret === 'string' ? credentials.secret : '',
		signatureHeader:
			typeof credentials?.signatureHeader === 'string' ? credentials.signatureHeader : '',
	};
	// Rotation (rotation.ts): absent in credentials saved before the field existed.
	if (typeof credentials?.previousSecret === 'string' && credentials.previousSecret !== '') {
		facts.previousSecret = credentials.previousSecret;
	}
	rememberCredential(id, facts, Date.now());
	return facts;
}

/** A delivery whose signature matched: its exact bytes, where the signature was found, which secret. */
export interface VerifiedDelivery extends SecretMatch {
	rawBody: Buffer;
	headers: HeaderBag;
	signatureHeader: string;
}

/**
 * The raw body of the request when one of its signatures matches, else undefined (the caller
 * answers 401): no secret, no signature header, an unreadable body or no match all fail.
 * Every candidate signature counts (several matching headers, repeated or comma-joined values,
 * at most MAX_SIGNATURE_CANDIDATES): the answer never depends on header order. Each is checked
 * against the current secret and, during a rotation, the previous one (rotation.ts).
 */
export async function verifiedDelivery(
	context: IWebhookFunctions,
): Promise<VerifiedDelivery | undefined> {
	const req = context.getRequestObject() as unknown as RequestLike;
	const { secret, signatureHeader, previousSecret } = await signingFacts(context);
	// The current secret, and the previous one during a rotation; none without a current one.
	const secrets = activeSecrets(secret, previousSecret);
	if (secrets.length === 0) return undefined;
	const headers: HeaderBag = req.headers ?? {};
	const candidates = signatureCandidates(headers, signatureHeader);
	if (candidates.length === 0) return undefined;
	const rawBody = await requestRawBody(req);
	const match = rawBody === undefined ? null : matchSecret(rawBody, candidates, secrets);
	if (rawBody === undefined || match === null) return undefined;
	return { rawBody, headers, signatureHeader, ...match };
}
