/** The item runner's pool (nodes/shared/runner.ts runPool): order of outcomes, the bound on work in flight. */
import { runPool } from '../../../nodes/shared/runner';

/** A promise with its resolve exposed, to finish work in a chosen order. */
function deferred<T>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => (resolve = r));
	return { promise, resolve };
}

/** Lets pending promise callbacks run. */
const flush = async () => {
	for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('runPool', () => {
	test('places outcomes by index whatever order the work finishes in', async () => {
		const gates = [0, 1, 2, 3].map(() => deferred<string>());
		const pending = runPool(4, 4, async (index) => await gates[index].promise);
		for (const index of [3, 1, 0, 2]) {
			gates[index].resolve(`item ${index}`);
			await flush();
		}
		expect(await pending).toEqual(
			[0, 1, 2, 3].map((index) => ({ ok: true, value: `item ${index}` })),
		);
	});

	test('never runs more than `concurrency` workers at once, and starts the next as one ends', async () => {
		const gates = Array.from({ length: 7 }, () => deferred<void>());
		const started: number[] = [];
		let running = 0;
		let most = 0;
		const pending = runPool(7, 3, async (index) => {
			started.push(index);
			running++;
			most = Math.max(most, running);
			await gates[index].promise;
			running--;
			return index;
		});
		await flush();
		expect(started).toEqual([0]);
		gates[0].resolve();
		await flush();
		expect(started).toEqual([0, 1, 2, 3]);
		gates[1].resolve();
		await flush();
		expect(started).toEqual([0, 1, 2, 3, 4]);
		for (const gate of gates) gate.resolve();
		const outcomes = await pending;
		expect(most).toBe(3);
		expect(outcomes.map((o) => (o.ok ? o.value : -1))).toEqual([0, 1, 2, 3, 4, 5, 6]);
	});

	test('index 0 finishes before any other index starts', async () => {
		const gate = deferred<void>();
		const started: number[] = [];
		const pending = runPool(4, 4, async (index) => {
			started.push(index);
			if (index === 0) await gate.promise;
			return index;
		});
		await flush();
		expect(started).toEqual([0]);
		gate.resolve();
		await pending;
		expect(started).toEqual([0, 1, 2, 3]);
	});

	test('failures stay at their index; other work continues', async () => {
		const outcomes = await runPool(3, 2, async (index) => {
			if (index === 1) throw new Error('boom');
			return index;
		});
		expect(outcomes[0]).toEqual({ ok: true, value: 0 });
		expect(outcomes[1]).toMatchObject({
			ok: false,
			error: expect.objectContaining({ message: 'boom' }),
		});
		expect(outcomes[2]).toEqual({ ok: true, value: 2 });
	});

	test('stopOnError: no new index starts after a failure; unstarted ones are marked skipped', async () => {
		const started: number[] = [];
		const outcomes = await runPool(
			6,
			2,
			async (index) => {
				started.push(index);
				if (index === 1) throw new Error('stop');
				return index;
			},
			{ stopOnError: true },
		);
		expect(started.length).toBeLessThan(6);
		expect(outcomes[5]).toEqual({ ok: false, skipped: true });
	});

	test('shouldStop (execution cancelled) stops starting new work', async () => {
		let cancelled = false;
		const outcomes = await runPool(
			5,
			1,
			async (index) => {
				if (index === 1) cancelled = true;
				return index;
			},
			{ shouldStop: () => cancelled },
		);
		expect(outcomes.map((o) => o.ok)).toEqual([true, true, false, false, false]);
	});

	test('no work: no outcome', async () => {
		expect(await runPool(0, 5, async () => 1)).toEqual([]);
	});
});
