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

/** Never rejects; indexes never started (after a stop) are `{ ok: false, skipped: true }`. */
export async function runPool<T>(
	count: number,
	concurrency: number,
	worker: (index: number) => Promise<T>,
	options: PoolOptions = {},
): Promise<Array<PoolOutcome<T>>> {
	const outcomes = Array.from(
		{ length: count },
		(): PoolOutcome<T> => ({ ok: false, skipped: true }),
	);
	const lanes = Math.max(1, Math.min(Math.floor(concurrency) || 1, count || 1));
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

	if (options.firstAlone && lanes > 1 && count > 1) await runNext();
	await Promise.all(
		Array.from({ length: lanes }, async () => {
			while (!stopped && next < count) await runNext();
		}),
	);
	return outcomes;
}
