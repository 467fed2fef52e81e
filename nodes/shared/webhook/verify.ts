/** Verifying one delivery: the signing credential, the signature header(s), the exact raw body; fails closed. */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { cachedCredential, rememberCredential, type SigningFacts } from './credential-cache';
import { signatureCandidates, type HeaderBag } from './signature';
import { activeSecrets, matchSecret, type SecretMatch } from './rotation';
import { requestRawBody } from '../n8n-compat';

export interface RequestLike {
	headers: HeaderBag;
}

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
	// absent in credentials saved before rotation existed
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

/** The delivery when one of its signatures matches the current or previous secret; every candidate counts. */
export async function verifiedDelivery(
	context: IWebhookFunctions,
): Promise<VerifiedDelivery | undefined> {
	const req = context.getRequestObject() as unknown as RequestLike;
	const { secret, signatureHeader, previousSecret } = await signingFacts(context);
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
