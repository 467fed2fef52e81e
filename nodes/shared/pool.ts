/**
 * A tiny promise pool: runs `worker(index)` for every index in `0 … count-1` with at most
 * `concurrency` calls in flight, and places each outcome at its index, so the caller can emit
 * results in input order whatever order the calls finish in. No timers, no dependencies.
 */

export type PoolOutcome<T> =
	| { ok: true; value: T }
	| { ok: false; error: unknown }
	| { ok: false; skipped: true };

export interface PoolOptions {
	/** Stop starting new indexes after the first failure (calls already in flight still finish). */
	stopOnError?: boolean;
	/** Checked before each start: when it returns true no further index starts. */
	shouldStop?: () => boolean;
	/**
	 * Run index 0 alone before the others start (e.g. so that a cold OAuth2 token is fetched
	 * once, not once per lane).
	 */
	firstAlone?: boolean;
}

/** Upper bound for `concurrency`; anything larger is clamped. */
export const MAX_CONCURRENCY = 100;

export function normaliseConcurrency(value: unknown, fallback: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) return fallback;
	return Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(number)));
}

/**
 * Runs the pool. Outcomes: `{ok:true,value}`, `{ok:false,error}` or, for indexes never started
 * (after a stop), `{ok:false,skipped:true}`. Never rejects.
 */
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
