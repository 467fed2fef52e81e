/**
 * A webhook context without HTTP or n8n, for the pure parts of the webhook entry points
 * (verify.ts, intake.ts, apply.ts): the request, the signing credential and a response that
 * records what was written to it.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

export interface Written {
	status?: number;
	body?: unknown;
	ended: boolean;
	headers: Record<string, string>;
}

export interface FakeWebhook {
	ctx: IWebhookFunctions;
	written: Written;
	/** How often n8n was asked for the credential. */
	reads: () => number;
}

export function fakeWebhook(
	request: { headers?: Record<string, string>; rawBody?: Buffer | string; closing?: boolean },
	credential: Record<string, unknown> | Error = {},
	credentialId = 'cred-1',
): FakeWebhook {
	let reads = 0;
	const written: Written = { ended: false, headers: {} };
	const res = {
		status(code: number) {
			written.status = code;
			return res;
		},
		send(body: unknown) {
			written.body = body;
			return res;
		},
		json(body: unknown) {
			written.body = body;
			written.ended = true;
			return res;
		},
		end() {
			written.ended = true;
			return res;
		},
		setHeader(name: string, value: string) {
			written.headers[name] = value;
		},
	};
	const req = {
		headers: request.headers ?? {},
		rawBody: request.rawBody,
		...(request.closing && { socket: { server: { listening: false } } }),
	};
	const ctx = {
		getRequestObject: () => req,
		getResponseObject: () => res,
		getNode: () => ({
			credentials: { consentFlowWebhookSigningApi: { id: credentialId, name: 'signing' } },
		}),
		getCredentials: async () => {
			reads++;
			if (credential instanceof Error) throw credential;
			return credential;
		},
	} as unknown as IWebhookFunctions;
	return { ctx, written, reads: () => reads };
}
