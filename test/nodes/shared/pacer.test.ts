/**
 * The adaptive concurrency (AIMD) of both action nodes, against the rule as TCP states it
 * (RFC 5681 §3.1: additive increase of one per window of acknowledged data, multiplicative
 * decrease — halving — on congestion, once per window) and the additions: never above the
 * user's maximum, never below 1, and a Retry-After pauses every lane.
 */
import fc from 'fast-check';
import { MAX_PAUSE_MS, Pacer, type PacerClock } from '../../../nodes/shared/pacer';

/** A clock whose sleep advances time at once. */
function fakeClock(): PacerClock & { t: number } {
	const clock = {
		t: 1_000_000,
		now: () => clock.t,
		sleep: async (ms: number) => {
			clock.t += ms;
		},
	};
	return clock;
}

describe('Pacer (AIMD)', () => {
	test('starts at the start value, at most max', () => {
		expect(new Pacer(20, 50).limit).toBe(20);
		expect(new Pacer(20, 5).limit).toBe(5);
	});

	test('additive increase: one more slot after each window of `limit` fast answers, up to max', async () => {
		const clock = fakeClock();
		const pacer = new Pacer(2, 5, clock);
		const limits: number[] = [];
		for (let i = 0; i < 40; i++) {
			const slot = await pacer.acquire();
			pacer.release(slot, { kind: 'answered', ms: 20 });
			limits.push(pacer.limit);
		}
		// windows of 2, 3, 4 answers → 3, 4, 5, then capped
		expect(limits.indexOf(3)).toBe(1);
		expect(limits.indexOf(4)).toBe(4);
		expect(limits.indexOf(5)).toBe(8);
		expect(Math.max(...limits)).toBe(5);
	});

	test('slow answers (beyond twice the fastest + 50 ms) do not grow the limit', async () => {
		const pacer = new Pacer(2, 10, fakeClock());
		let slot = await pacer.acquire();
		pacer.release(slot, { kind: 'answered', ms: 10 });
		for (let i = 0; i < 20; i++) {
			slot = await pacer.acquire();
			pacer.release(slot, { kind: 'answered', ms: 500 });
		}
		expect(pacer.limit).toBe(2);
	});

	test('multiplicative decrease: refusals of attempts started in one window halve the limit once', async () => {
		const pacer = new Pacer(16, 16, fakeClock());
		const slots = await Promise.all(Array.from({ length: 16 }, async () => await pacer.acquire()));
		for (const slot of slots) pacer.release(slot, { kind: 'refused' });
		expect(pacer.limit).toBe(8);
		// an attempt started after the decrease and refused halves again
		const later = await pacer.acquire();
		pacer.release(later, { kind: 'refused' });
		expect(pacer.limit).toBe(4);
	});

	test('never below 1', async () => {
		const pacer = new Pacer(1, 4, fakeClock());
		for (let i = 0; i < 5; i++) pacer.release(await pacer.acquire(), { kind: 'refused' });
		expect(pacer.limit).toBe(1);
	});

	test('Retry-After pauses every lane: no attempt starts before it has passed (at most MAX_PAUSE_MS)', async () => {
		const clock = fakeClock();
		const pacer = new Pacer(4, 4, clock);
		const slot = await pacer.acquire();
		const refusedAt = clock.t;
		pacer.release(slot, { kind: 'refused', retryAfterMs: 2_000 });
		pacer.release(await pacer.acquire(), { kind: 'failed' });
		expect(clock.t - refusedAt).toBe(2_000);
		const other = await pacer.acquire();
		const at = clock.t;
		pacer.release(other, { kind: 'refused', retryAfterMs: 3_600_000 });
		await pacer.acquire();
		expect(clock.t - at).toBe(MAX_PAUSE_MS);
	});

	test('an aborted signal never waits for a slot', async () => {
		const pacer = new Pacer(1, 1, fakeClock());
		await pacer.acquire();
		const controller = new AbortController();
		controller.abort();
		await expect(pacer.acquire(controller.signal)).resolves.toEqual({
			generation: 0,
			concurrent: 2,
		});
	});

	test('property: whatever the answers, in flight never exceeds max and the limit stays in 1…max', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1, max: 30 }),
				fc.integer({ min: 1, max: 30 }),
				fc.array(
					fc.oneof(
						fc.record({
							kind: fc.constant('answered' as const),
							ms: fc.integer({ min: 0, max: 2000 }),
						}),
						fc.record({
							kind: fc.constant('refused' as const),
							retryAfterMs: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
						}),
						fc.constant({ kind: 'failed' as const }),
					),
					{ minLength: 1, maxLength: 120 },
				),
				async (start, max, outcomes) => {
					const pacer = new Pacer(start, max, fakeClock());
					let inFlight = 0;
					let peak = 0;
					let next = 0;
					const lane = async (): Promise<void> => {
						while (next < outcomes.length) {
							const outcome = outcomes[next++];
							const slot = await pacer.acquire();
							inFlight++;
							peak = Math.max(peak, inFlight);
							expect(inFlight).toBeLessThanOrEqual(max);
							await Promise.resolve();
							inFlight--;
							pacer.release(slot, outcome);
							expect(pacer.limit).toBeGreaterThanOrEqual(1);
							expect(pacer.limit).toBeLessThanOrEqual(max);
						}
					};
					await Promise.all(Array.from({ length: Math.max(start, max) }, async () => await lane()));
					expect(peak).toBeLessThanOrEqual(max);
				},
			),
			{ numRuns: 200 },
		);
	});
});
