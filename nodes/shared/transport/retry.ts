/**
 * Sending with bounded retries: every request goes through n8n's
 * `this.helpers.httpRequestWithAuthentication` (n8n fetches, caches and refreshes the OAuth2
 * token); 429/503-like answers are retried with exponential backoff honouring Retry-After, and a
 * request that may already have reached the service is sent again only when it is idempotent.
 */
import { sleep } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { isNotSent, normalizeHttpError } from './failure';
import type { HttpFailure } from './failure';

export interface RetryPolicy {
	/** Retries after the first attempt (0 = no retries). */
	maxRetries: number;
	/** First backoff; doubled per retry. */
	baseDelayMs: number;
	/** Upper bound for one wait, also for a Retry-After the service asks for. */
	maxDelayMs: number;
	/** Statuses that mean "not processed, try later". */
	retryStatuses: number[];
	/**
	 * Whether a request that may already have reached the service can be sent again:
	 * true for idempotent calls (GET, DELETE), false for creates. Connection failures that
	 * prove nothing was sent (refused, DNS) are retried either way.
	 */
	idempotent: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	retryStatuses: [429, 503],
	idempotent: true,
};

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** " It asked to wait 3600 s (Retry-After), longer than the node waits (30 s)." or ''. */
export function retryAfterTooLong(
	failure: HttpFailure,
	policy: Pick<RetryPolicy, 'maxDelayMs'>,
): string {
	const asked = parseRetryAfter(failure.headers['retry-after']);
	if (asked === undefined || asked <= policy.maxDelayMs) return '';
	return `The service asked to wait ${Math.round(asked / 1000)} s (Retry-After), longer than the node waits (${Math.round(policy.maxDelayMs / 1000)} s), so it did not retry.`;
}

/** The wait before retry number `retry` (0-based), or undefined when no retry should happen. */
export function retryDelay(
	failure: HttpFailure,
	retry: number,
	policy: RetryPolicy,
): number | undefined {
	if (retry >= policy.maxRetries) return undefined;
	let retryable = false;
	if (failure.status !== undefined) {
		retryable = policy.retryStatuses.includes(failure.status);
	} else if (!failure.tokenFailure && failure.code) {
		retryable = isNotSent(failure.code) || policy.idempotent;
	}
	if (!retryable) return undefined;
	const backoff = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
	const asked = parseRetryAfter(failure.headers['retry-after']);
	if (asked === undefined) return backoff;
	if (asked > policy.maxDelayMs) return undefined; // the service asks for a longer pause than we wait
	return asked;
}

/** An error answer to a streamed request may carry an unread stream: free its socket. */
export function releaseBody(body: unknown): void {
	const destroy =
		body !== null && typeof body === 'object' ? (body as { destroy?: unknown }).destroy : undefined;
	if (typeof destroy === 'function') (destroy as () => void).call(body);
}

/**
 * Sends one request through n8n's authenticated helper, retrying per `policy`. Resolves with the
 * response; rejects with the last `HttpFailure` (a plain object with `attempts`).
 */
export async function sendWithRetry<T = unknown>(
	ctx: IExecuteFunctions,
	credentialType: string,
	options: IHttpRequestOptions,
	policy: RetryPolicy,
): Promise<T> {
	for (let retry = 0; ; retry++) {
		try {
			return (await ctx.helpers.httpRequestWithAuthentication.call(ctx, credentialType, {
				...options,
			})) as T;
		} catch (error) {
			const failure = normalizeHttpError(error);
			failure.attempts = retry + 1;
			const wait = retryDelay(failure, retry, policy);
			if (wait === undefined) throw failure;
			await sleep(wait);
		}
	}
}
