// One secret and one header: the signature module's rules as the trigger uses them (several of each).
import { minimiseHeaders } from '../../nodes/shared/webhook/minimise';
import { matchSecret } from '../../nodes/shared/webhook/signature';

export const verifyWithSecrets = (...args: Parameters<typeof matchSecret>) =>
	matchSecret(...args) !== null;

export const verifyAnySignature = (
	body: Buffer,
	candidates: readonly string[],
	secret?: string | null,
) => typeof secret === 'string' && verifyWithSecrets(body, candidates, [secret]);

export const verifySignature = (
	body: Buffer,
	header: string | undefined | null,
	secret?: string | null,
) => typeof header === 'string' && verifyAnySignature(body, [header], secret);

/** Include Headers with every header named in Additional Headers: credentials are left out all the same. */
export const headersWithoutSecrets = (headers: Record<string, unknown>) =>
	minimiseHeaders(
		headers,
		'keep',
		Object.keys(headers).map((name) => name.toLowerCase()),
	);
