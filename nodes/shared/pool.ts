export type PoolOutcome<T> =
	| { ok: true; value: T }
	| { ok: false; error: unknown }
	| { ok: false; skipped: true };

interface PoolOptions {
	stopOnError?: boolean;
	shouldStop?: () => boolean;
	// index 0 alone first, so that a cold OAuth2 token is fetched once, not once per lane
	firstAlone?: boolean;
}

export const MAX_CONCURRENCY = 100;

export function normaliseConcurrency(value: unknown, fallback: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) return fallback;
	return Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(number)));
}

/** Never rejects; indexes never started (after a stop) are `{ ok: false, skipped: true }`. */
export async function runPool<T>(
	count: number,
	concurrency: number,
	worker: (index: number) => Promise<T>,
	options: PoolOptions = {},
): Promise<Array<PoolOutcome<T>>> {
	const outcomes: Array<PoolOutcome<T>> = new Array(count);
	const limit = Math.max(1, Math.min(Math.floor(concurrency) || 1, count || 1));
	let next = 0;
	let stopped = false;

	async function runNext(): Promise<void> {
		if (options.shouldStop?.()) {
			stopped = true;
			return;
		}
		const index = next++;
		try {
			outcomes[index] = { ok: true, value: await worker(index) };
		} catch (error) {
			outcomes[index] = { ok: false, error };
			if (options.stopOnError) stopped = true;
		}
	}

	async function lane(): Promise<void> {
		while (!stopped && next < count) await runNext();
	}

	if (options.firstAlone && limit > 1 && count > 1) {
		await runNext();
	}
	await Promise.all(Array.from({ length: limit }, async () => await lane()));
	for (let index = 0; index < count; index++) {
		if (outcomes[index] === undefined) outcomes[index] = { ok: false, skipped: true };
	}
	return outcomes;
}
