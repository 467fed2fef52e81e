import { previousSecretProblem } from './rotation';
import { signingCredentialProblem } from './signature';

// The credential type is credentials/ConsentFlowWebhookSigningApi.credentials.ts's `name`.
export const SIGNING_CREDENTIAL = 'consentFlowWebhookSigningApi';

interface SigningCredentialData {
	secret?: unknown;
	signatureHeader?: unknown;
	previousSecret?: unknown;
}

/** The first reason the signing credential cannot verify deliveries, or null. */
export function signingCredentialCheck(data: SigningCredentialData): string | null {
	return (
		signingCredentialProblem(data.secret, data.signatureHeader) ??
		previousSecretProblem(data.previousSecret)
	);
}
