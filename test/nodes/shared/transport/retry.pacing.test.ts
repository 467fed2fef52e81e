/**
 * sendWithRetry with a pacer (docs/architecture.md#adaptive-concurrency): every attempt takes a slot
 * and gives it back once with what it met; a 429/503 met while others were in flight does not use up
 * Max Retries (at most 20 such), alone it does. Also the retry rule Retry-After-only statuses follow.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { Pacer } from '../../../../nodes/shared/pacer';
import type { AttemptOutcome, Slot } from '../../../../nodes/shared/pacer';
import { DEFAULT_RETRY, retryDelay, sendWithRetry } from '../../../../nodes/shared/transport/retry';
import type { RetryPolicy } from '../../../../nodes/shared/transport/retry';

// 429 and 503 retried, nothing resent that may have acted
const policy: RetryPolicy = { ...DEFAULT_RETRY, maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1000 };
const options: IHttpRequestOptions = { url: 'http://service/x', method: 'POST' };

const refused = (status: number, headers: Record<string, string> = {}) =>
	Object.assign(new Error(`Request failed with status code ${status}`), {
		response: { status, headers },
	});
const notSent = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** The helper answers `script(n)` for the n-th call (from 0); an Error is thrown. */
function service(
	script: (n: number, request: IHttpRequestOptions) => unknown,
	signal?: AbortSignal,
) {
	const sent: IHttpRequestOptions[] = [];
	const ctx = {
		getExecutionCancelSignal: () => signal,
		helpers: {
			async httpRequestWithAuthentication(_credentialType: string, request: IHttpRequestOptions) {
				sent.push(request);
				const answer = script(sent.length - 1, request);
				if (answer instanceof Error) throw answer;
				return answer;
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, sent };
}

/** A pacer that hands out slots with `concurrent` in flight and records every acquire and release. */
function recordingPacer(concurrent: (n: number) => number, onAcquire?: (n: number) => void) {
	const slots: Slot[] = [];
	const released: Array<{ slot: Slot; outcome: AttemptOutcome }> = [];
	const pacer = {
		async acquire() {
			onAcquire?.(slots.length);
			const slot = { generation: slots.length, concurrent: concurrent(slots.length) };
			slots.push(slot);
			return slot;
		},
		release(slot: Slot, outcome: AttemptOutcome) {
			released.push({ slot, outcome });
		},
	};
	/** The outcomes, after checking each slot came back once, in the order taken. */
	const outcomes = () => {
		expect(released.map(({ slot }) => slot)).toEqual(slots);
		released.forEach(({ slot }, i) => expect(slot).toBe(slots[i]));
		return released.map(({ outcome }) => outcome);
	};
	return { pacer: pacer as unknown as Pacer, outcomes };
}

const stopped = (attempts: number) => ({
	headers: {},
	message: 'The execution was stopped',
	tokenFailure: false,
	cancelled: true,
	attempts,
});

describe('sendWithRetry: refusals and Max Retries', () => {
	test('a refusal while others were in flight does not use up Max Retries, 20 times at most', async () => {
		// refused 100 times, then a 400 that ends a run that never stops counting
		const { ctx, sent } = service((n) => (n < 100 ? refused(429) : refused(400)));
		const { pacer, outcomes } = recordingPacer(() => 2);
		await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).rejects.toMatchObject({
			status: 429,
			attempts: 23, // 20 paced + Max Retries 2 + the first
		});
		expect(sent).toHaveLength(23);
		expect(outcomes()).toEqual(Array(23).fill({ kind: 'refused' }));
	});

	test('alone, a refusal uses up Max Retries (a real pacer of one lane)', async () => {
		const { ctx, sent } = service(() => refused(503));
		const pacer = new Pacer(1, 1);
		await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).rejects.toMatchObject({
			status: 503,
			attempts: 3,
		});
		expect(sent).toHaveLength(3);
		// every slot came back: the next request gets one at once
		const { ctx: next } = service(() => ({ ok: true }));
		await expect(sendWithRetry(next, 'c', options, policy, pacer)).resolves.toEqual({ ok: true });
	});

	test('a refusal while others were in flight is retried even when Max Retries are used up', async () => {
		const { ctx, sent } = service((n) => (n < 3 ? refused(503) : { ok: true }));
		const { pacer } = recordingPacer((n) => (n < 2 ? 1 : 2)); // alone twice, then in company
		await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).resolves.toEqual({ ok: true });
		expect(sent).toHaveLength(4);
	});

	test('Max Retries 0 stays no retry, also for a refusal while others were in flight', async () => {
		const { ctx, sent } = service(() => refused(429));
		const { pacer } = recordingPacer(() => 5);
		await expect(
			sendWithRetry(ctx, 'c', options, { ...policy, maxRetries: 0 }, pacer),
		).rejects.toMatchObject({ status: 429, attempts: 1 });
		expect(sent).toHaveLength(1);
	});

	test('a connection failure uses up Max Retries also while others were in flight', async () => {
		const { ctx, sent } = service(() => notSent());
		const { pacer, outcomes } = recordingPacer(() => 4);
		await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).rejects.toMatchObject({
			code: 'ECONNREFUSED',
			attempts: 3,
		});
		expect(sent).toHaveLength(3);
		expect(outcomes()).toEqual(Array(3).fill({ kind: 'failed' }));
	});
});

describe('sendWithRetry: what the pacer is told', () => {
	afterEach(() => jest.restoreAllMocks());

	test('an answer gives the slot back with the time it took', async () => {
		let now = 1_000_000;
		jest.spyOn(Date, 'now').mockImplementation(() => now);
		const { ctx } = service(() => {
			now += 250;
			return { ok: true };
		});
		const { pacer, outcomes } = recordingPacer(() => 1);
		await sendWithRetry(ctx, 'c', options, policy, pacer);
		expect(outcomes()).toEqual([{ kind: 'answered', ms: 250 }]);
	});

	test('429 and 503 are refusals whatever the policy retries, with the Retry-After asked', async () => {
		for (const [status, retryStatuses] of [
			[429, [503]],
			[503, [429]],
			[429, []],
		] as const) {
			const { ctx, sent } = service(() => refused(status, { 'retry-after': '2' }));
			const { pacer, outcomes } = recordingPacer(() => 2);
			const only = { ...policy, retryStatuses: [...retryStatuses] };
			await expect(sendWithRetry(ctx, 'c', options, only, pacer)).rejects.toMatchObject({
				status,
				attempts: 1,
			});
			expect(sent).toHaveLength(1);
			expect(outcomes()).toEqual([{ kind: 'refused', retryAfterMs: 2000 }]);
		}
	});

	test('another status is a refusal only when the policy retries it', async () => {
		const { ctx } = service((n) => (n === 0 ? refused(502, { 'retry-after': '0' }) : refused(500)));
		const { pacer, outcomes } = recordingPacer(() => 1);
		const withBadGateway = { ...policy, retryStatuses: [502] };
		await expect(sendWithRetry(ctx, 'c', options, withBadGateway, pacer)).rejects.toMatchObject({
			status: 500,
			attempts: 2,
		});
		expect(outcomes()).toEqual([{ kind: 'refused', retryAfterMs: 0 }, { kind: 'failed' }]);
	});

	test('a stop while waiting for a slot sends nothing more and gives the slot back as failed', async () => {
		for (const stopAt of [0, 1]) {
			const controller = new AbortController();
			const { ctx, sent } = service(() => refused(503), controller.signal);
			const { pacer, outcomes } = recordingPacer(
				() => 1,
				(n) => n === stopAt && controller.abort(),
			);
			await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).rejects.toEqual(
				stopped(stopAt),
			);
			expect(sent).toHaveLength(stopAt);
			expect(outcomes().at(-1)).toEqual({ kind: 'failed' });
			expect(outcomes()).toHaveLength(stopAt + 1);
		}
	});

	test('a stop in flight gives the slot back with what the attempt met', async () => {
		const controller = new AbortController();
		const { ctx } = service(() => {
			controller.abort();
			return refused(503, { 'retry-after': '1' });
		}, controller.signal);
		const { pacer, outcomes } = recordingPacer(() => 3);
		await expect(sendWithRetry(ctx, 'c', options, policy, pacer)).rejects.toEqual(stopped(1));
		expect(outcomes()).toEqual([{ kind: 'refused', retryAfterMs: 1000 }]);
	});
});

test("every attempt carries its own copy of the caller's headers", async () => {
	const caller = { ...options, headers: { accept: 'application/json' } };
	const seen: unknown[] = [];
	const { ctx } = service((n, request) => {
		seen.push({ ...request.headers });
		// as n8n's authentication does: the token goes into the request's headers
		(request.headers as Record<string, string>).authorization = `Bearer t${n}`;
		return n === 0 ? refused(503) : { ok: true };
	});
	await sendWithRetry(ctx, 'c', caller, policy);
	expect(seen).toEqual([{ accept: 'application/json' }, { accept: 'application/json' }]);
	expect(caller.headers).toEqual({ accept: 'application/json' });
});

describe('retryDelay: statuses retried only when the service asks to come back', () => {
	const picky = { ...policy, retryStatuses: [429, 503], onlyWithRetryAfter: [503] };
	const failure = (status: number, headers: Record<string, string> = {}) => ({
		status,
		headers,
		message: 'x',
		tokenFailure: false,
	});

	test('without Retry-After it is not retried; with one it waits as asked', () => {
		expect(retryDelay(failure(503), 0, picky)).toBeUndefined();
		expect(retryDelay(failure(503, { 'retry-after': '1' }), 0, picky)).toBe(1000);
	});

	test('the other retried statuses back off as usual', () => {
		expect(retryDelay(failure(429), 1, picky)).toBe(2);
	});
});
