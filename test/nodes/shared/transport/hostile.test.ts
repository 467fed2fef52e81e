/**
 * Hostile and careless input at the transport (issue "Hostile input", items 7, 8, 15), each
 * derived from the published rule or measured over real HTTP against the simulator.
 */
import { sleep } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';
import { ConsentFlow } from '../../../../nodes/ConsentFlow/ConsentFlow.node';
import { RealEstateEstimate } from '../../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import {
	parseRetryAfter,
	retryDelay,
	DEFAULT_RETRY,
	sendWithRetry,
} from '../../../../nodes/shared/transport/retry';
import type { HttpFailure } from '../../../../nodes/shared/transport/failure';
import { createExecuteContext } from '../../../support/execute-context';
import { addFault, simRequests, useSimulator } from '../../../support/simulator';
import { createParams, credentialsFor } from '../../ConsentFlow/helpers';
import { cadastre, estimateCredentials } from '../../RealEstateEstimate/helpers';

const failure = (headers: Record<string, string>): HttpFailure => ({
	status: 503,
	headers,
	message: 'x',
	tokenFailure: false,
});

describe('Retry-After is read as RFC 9110 §10.2.3 defines it, nothing else', () => {
	// Retry-After = HTTP-date / delay-seconds; delay-seconds = 1*DIGIT (RFC 9110 §10.2.3);
	// HTTP-date: its IMF-fixdate form, the one senders must generate (RFC 9110 §5.6.7).
	const now = Date.parse('2026-11-23T10:00:00Z');

	test.each([
		['-1', 'a negative number'],
		['5, 10', 'a list (duplicated header)'],
		['0.5', 'a fraction (1*DIGIT allows none)'],
		['1e3', 'an exponent'],
		['garbage', 'words'],
		['Mon, 23 Nov 2026', 'a date without time'],
		['2026-11-23T10:00:05Z', 'an ISO date (not an HTTP-date)'],
		['Sun, 32 Nov 2026 10:00:05 GMT', 'a day that does not exist'],
		['Sun, 23 Nov 2026 10:00:05 CET', 'a zone other than GMT'],
		['', 'empty'],
		['Monday, 23-Nov-26 10:00:05 GMT', 'the obsolete RFC 850 form'],
		['Mon Nov 23 10:00:05 2026', 'the obsolete asctime form'],
	])('%j (%s) is not understood', (value) => {
		expect(parseRetryAfter(value, now)).toBeUndefined();
	});

	test.each([
		['7', 7000],
		['0', 0],
		[' 12 ', 12_000],
		['Mon, 23 Nov 2026 10:00:05 GMT', 5000], // IMF-fixdate
		['Mon, 02 Nov 2026 10:00:05 GMT', 0], // in the past
	])('%j is %d ms', (value, ms) => {
		expect(parseRetryAfter(value, now)).toBe(ms);
	});

	test("an unreadable Retry-After falls back to the node's own backoff, never to 0 ms", () => {
		const policy = { ...DEFAULT_RETRY, baseDelayMs: 400, maxRetries: 3 };
		for (const value of ['-1', '5, 10', 'garbage']) {
			expect(retryDelay(failure({ 'retry-after': value }), 0, policy)).toBe(400);
			expect(retryDelay(failure({ 'retry-after': value }), 2, policy)).toBe(1600);
		}
	});
});

describe('every retried streamed body is released', () => {
	test('a 503 answer carrying an unread stream is destroyed before the retry, not only the last one', async () => {
		const destroyed: number[] = [];
		let calls = 0;
		const ctx = {
			getExecutionCancelSignal: () => undefined,
			helpers: {
				async httpRequestWithAuthentication() {
					const attempt = ++calls;
					const body = { destroy: () => destroyed.push(attempt), pipe() {} };
					throw Object.assign(new Error('Request failed with status code 503'), {
						response: { status: 503, headers: { 'retry-after': '0' }, data: body },
					});
				},
			},
		} as unknown as IExecuteFunctions;
		const policy = { ...DEFAULT_RETRY, maxRetries: 2, baseDelayMs: 1 };
		await expect(
			sendWithRetry(ctx, 'x', { url: 'http://x', encoding: 'stream' }, policy),
		).rejects.toMatchObject({
			status: 503,
			attempts: 3,
		});
		// attempts 1 and 2 were retried: their bodies must be released too
		expect(destroyed.slice(0, 2)).toEqual([1, 2]);
	});
});

describe('a stopped execution stops its requests and waits', () => {
	const sim = useSimulator({ beforeEach: 'reset' });
	const apiRequests = async (pathPrefix: string) => await simRequests(sim, { pathPrefix });

	test('Consent Flow: a stop during a Retry-After wait ends the run within a second and sends nothing more', async () => {
		await addFault(sim, {
			status: 503,
			retryAfter: 20,
			count: 5,
			match: { method: 'POST', pathPrefix: '/consent/api/flow-definitions' },
		});
		const abort = new AbortController();
		const ctx = createExecuteContext({
			parameters: createParams(),
			items: [{ json: {} }, { json: {} }, { json: {} }],
			credentials: { consentFlowOAuth2Api: credentialsFor(sim) as never },
			signal: abort.signal,
		});
		const run = new ConsentFlow().execute.call(ctx).then(
			() => 'finished',
			() => 'failed',
		);
		await waitFor(async () => (await apiRequests('/consent/api/flow-definitions')).length >= 1);
		const stoppedAt = Date.now();
		abort.abort();
		await run;
		expect(Date.now() - stoppedAt).toBeLessThan(1000);
		await sleep(0);
		expect(await apiRequests('/consent/api/flow-definitions')).toHaveLength(1);
	});

	// Issue "Hostile input", item 10: with Environment = Production nothing goes to an http address.
	test.each([
		[
			'apiBaseUrl',
			'API Base URL',
			(c: Record<string, unknown>) => ({ ...c, apiBaseUrl: 'http://api.example.com' }),
		],
		[
			'identityProviderUrl',
			'Identity Provider URL',
			(c: Record<string, unknown>) => ({
				...c,
				apiBaseUrl: 'https://api.example.com',
				identityProviderUrl: sim.authUrl,
			}),
		],
	])('Production with an http %s: refused before any request', async (_field, label, change) => {
		const ctx = createExecuteContext({
			parameters: createParams(),
			credentials: {
				consentFlowOAuth2Api: change({
					...credentialsFor(sim),
					environment: 'production',
				}) as never,
			},
		});
		const error = await new ConsentFlow().execute.call(ctx).then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toBe(
			`The credential's "${label}" must use https when the credential environment is Production`,
		);
		expect(ctx.sent).toEqual([]);
		expect(await apiRequests('/')).toEqual([]);
	});

	test('Real Estate Estimate: a stop mid-batch starts no further item', async () => {
		await addFault(sim, {
			latencyMs: 200,
			count: 1000,
			match: { pathPrefix: sim.estimatePrefix },
		});
		const abort = new AbortController();
		const ctx = createExecuteContext({
			parameters: {
				resource: 'estimate',
				operation: 'getBasis',
				...cadastre('0301', 208, 12),
				options: { concurrency: 2 },
			},
			items: Array.from({ length: 20 }, () => ({ json: {} })),
			credentials: estimateCredentials(sim),
			signal: abort.signal,
		});
		const run = new RealEstateEstimate().execute.call(ctx).then(
			() => 'finished',
			() => 'failed',
		);
		await waitFor(async () => (await apiRequests(sim.estimatePrefix)).length >= 2);
		abort.abort();
		const stoppedAt = Date.now();
		await run;
		expect(Date.now() - stoppedAt).toBeLessThan(1000);
		const sent = (await apiRequests(sim.estimatePrefix)).length;
		await sleep(400);
		expect((await apiRequests(sim.estimatePrefix)).length).toBe(sent);
		expect(sent).toBeLessThan(6);
	});
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > until) throw new Error('condition not reached');
		await sleep(20);
	}
}
