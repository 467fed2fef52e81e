// A request that may already have reached the service is sent again only when it is idempotent.
import { sleep } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { isNotSent, normaliseHttpError } from './failure';
import { credentialsCarriedBy } from '../n8n-compat';
import type { HttpFailure } from './failure';
import type { AttemptOutcome, Pacer } from '../pacer';

export interface RetryPolicy {
	maxRetries: number;
	baseDelayMs: number;
	/** Also caps a Retry-After the service asks for. */
	maxDelayMs: number;
	retryStatuses: number[];
	/** Send again what may have reached the service (GET, DELETE); a proven not-sent is retried anyway. */
	idempotent: boolean;
	/** Of retryStatuses, those retried only when the answer carries Retry-After (the service asks to come back). */
	onlyWithRetryAfter?: number[];
}

/** The timing every policy starts from; it resends only what never reached the service. */
export const DEFAULT_RETRY: RetryPolicy = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	retryStatuses: [429, 503],
	idempotent: false,
};

// Seconds, or an HTTP-date in the form senders must generate (IMF-fixdate, RFC 9110 §5.6.7): a date
// that does not exist does not print back the same. Anything else: the caller's own backoff.
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
	const date = Date.parse(text);
	if (Number.isNaN(date) || new Date(date).toUTCString() !== text) return undefined;
	return Math.max(0, date - now);
}

export function retryAfterTooLong(
	failure: HttpFailure,
	policy: Pick<RetryPolicy, 'maxDelayMs'>,
): string {
	const asked = parseRetryAfter(failure.headers['retry-after']);
	if (asked === undefined || asked <= policy.maxDelayMs) return '';
	return `The service asked to wait ${Math.round(asked / 1000)} s (Retry-After), longer than the node waits (${Math.round(policy.maxDelayMs / 1000)} s), so it did not retry.`;
}

export function retryDelay(
	failure: HttpFailure,
	retry: number,
	policy: RetryPolicy,
): number | undefined {
	if (retry >= policy.maxRetries) return undefined;
	const { status, headers, code } = failure;
	const retryable =
		status === undefined
			? !failure.tokenFailure && !!code && (isNotSent(code) || policy.idempotent)
			: policy.retryStatuses.includes(status) &&
				!(policy.onlyWithRetryAfter?.includes(status) && headers['retry-after'] === undefined);
	if (!retryable) return undefined;
	const asked = parseRetryAfter(headers['retry-after']);
	if (asked === undefined) return Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
	return asked > policy.maxDelayMs ? undefined : asked; // a longer pause than the node waits: no retry
}

/** An error answer to a streamed request may carry an unread stream: free its socket. */
export function releaseBody(body: unknown): void {
	const destroy =
		body !== null && typeof body === 'object' ? (body as { destroy?: unknown }).destroy : undefined;
	if (typeof destroy === 'function') (destroy as () => void).call(body);
}

export async function waitUnlessAborted(
	ms: number,
	signal: AbortSignal | undefined,
): Promise<void> {
	if (signal?.aborted) return;
	let onAbort = (): void => {};
	const aborted = new Promise<void>((resolve) => (onAbort = resolve));
	signal?.addEventListener('abort', onAbort);
	await Promise.race([sleep(ms), aborted]);
	signal?.removeEventListener('abort', onAbort);
}

/** Refusals of one request that do not use up its retries while the pacer runs several at once. */
const PACED_REFUSALS = 20;

function pacingOutcome({ status, headers }: HttpFailure, policy: RetryPolicy): AttemptOutcome {
	return status === 429 || status === 503 || policy.retryStatuses.includes(status ?? 0)
		? { kind: 'refused', retryAfterMs: parseRetryAfter(headers['retry-after']) }
		: { kind: 'failed' };
}

function cancelled(attempts: number): HttpFailure {
	return {
		headers: {},
		message: 'The execution was stopped',
		tokenFailure: false,
		cancelled: true,
		attempts,
	};
}

/** Rejects with the last HttpFailure; the cancel signal aborts the request in flight and any wait. */
export async function sendWithRetry<T = unknown>(
	ctx: IExecuteFunctions,
	credentialType: string,
	options: IHttpRequestOptions,
	policy: RetryPolicy,
	pacer?: Pacer,
	learn?: (...secrets: unknown[]) => void,
): Promise<T> {
	const signal = ctx.getExecutionCancelSignal?.();
	// A 429/503 of an attempt sent while others were in flight means "slower": the pacer halves and the
	// item retries without using up Max Retries (at most PACED_REFUSALS times). Alone, it counts.
	let pacedRefusals = 0;
	for (let retry = 0, attempt = 0; ; attempt++) {
		const turn = pacer && { pacer, slot: await pacer.acquire(signal) };
		if (signal?.aborted) {
			turn?.pacer.release(turn.slot, { kind: 'failed' });
			throw cancelled(attempt);
		}
		const started = Date.now();
		// options of its own per attempt: a failure learns the token this attempt really carried
		const request: IHttpRequestOptions = { ...options };
		if (options.headers) request.headers = { ...options.headers };
		if (signal) request.abortSignal = signal;
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				credentialType,
				request,
			)) as T;
			turn?.pacer.release(turn.slot, { kind: 'answered', ms: Date.now() - started });
			return response;
		} catch (error) {
			learn?.(...credentialsCarriedBy(request, error));
			const failure = normaliseHttpError(error);
			failure.attempts = attempt + 1;
			const outcome = pacingOutcome(failure, policy);
			turn?.pacer.release(turn.slot, outcome);
			if (signal?.aborted) {
				releaseBody(failure.body);
				throw cancelled(attempt + 1);
			}
			// Max Retries 0 stays no retry: retryDelay refuses retry 0 of 0
			const paced =
				outcome.kind === 'refused' &&
				turn !== undefined &&
				turn.slot.concurrent > 1 &&
				pacedRefusals < PACED_REFUSALS;
			const wait = retryDelay(failure, paced ? 0 : retry, policy);
			if (wait === undefined) throw failure;
			if (paced) pacedRefusals++;
			else retry++;
			releaseBody(failure.body); // a retried answer's unread stream would hold its socket
			await waitUnlessAborted(wait, signal);
		}
	}
}
