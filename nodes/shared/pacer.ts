// AIMD, as TCP paces itself; the rules and why 20: docs/architecture.md#adaptive-concurrency
import { sleep } from 'n8n-workflow';

export interface PacerClock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

const SYSTEM_CLOCK: PacerClock = { now: () => Date.now(), sleep: async (ms) => await sleep(ms) };

export type AttemptOutcome =
	| { kind: 'answered'; ms: number }
	| { kind: 'refused'; retryAfterMs?: number }
	| { kind: 'failed' };

export interface Slot {
	generation: number;
	concurrent: number;
}

/** Longest single pause honoured (a longer Retry-After is the retry policy's business). */
export const MAX_PAUSE_MS = 30_000;

export class Pacer {
	private current: number;
	private inFlight = 0;
	private pausedUntil = 0;
	private fastInWindow = 0;
	private fastestMs = Number.POSITIVE_INFINITY;
	private generation = 0;
	private readonly waiters: Array<() => void> = [];

	constructor(
		start: number,
		private readonly max: number,
		private readonly clock: PacerClock = SYSTEM_CLOCK,
	) {
		this.current = Math.min(max, start);
	}

	get limit(): number {
		return this.current;
	}

	async acquire(signal?: AbortSignal): Promise<Slot> {
		for (;;) {
			if (signal?.aborted) break;
			const wait = this.pausedUntil - this.clock.now();
			if (wait > 0) {
				await this.clock.sleep(Math.min(wait, MAX_PAUSE_MS));
				continue;
			}
			if (this.inFlight < this.current) break;
			await new Promise<void>((resolve) => this.waiters.push(resolve));
		}
		this.inFlight++;
		return { generation: this.generation, concurrent: this.inFlight };
	}

	release(slot: Slot, outcome: AttemptOutcome): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		if (outcome.kind === 'answered') this.answered(outcome.ms);
		else if (outcome.kind === 'refused') this.refused(slot, outcome.retryAfterMs);
		this.wake();
	}

	private answered(ms: number): void {
		if (!Number.isFinite(ms) || ms < 0) return;
		this.fastestMs = Math.min(this.fastestMs, ms);
		// "fast": within twice the fastest answer + 50 ms, so a service slowing down stops the growth early
		if (ms > this.fastestMs * 2 + 50) {
			this.fastInWindow = 0;
			return;
		}
		this.fastInWindow++;
		if (this.fastInWindow >= this.current && this.current < this.max) {
			this.current++;
			this.fastInWindow = 0;
		}
	}

	private refused(slot: Slot, retryAfterMs: number | undefined): void {
		if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0) {
			const until = this.clock.now() + Math.min(retryAfterMs, MAX_PAUSE_MS);
			this.pausedUntil = Math.max(this.pausedUntil, until);
		}
		// One halving per window: attempts started at the old rate are not held against the new one.
		if (slot.generation !== this.generation) return;
		this.generation++;
		this.fastInWindow = 0;
		this.current = Math.max(1, Math.floor(this.current / 2));
	}

	private wake(): void {
		let free = this.current - this.inFlight;
		while (free > 0 && this.waiters.length > 0) {
			this.waiters.shift()?.();
			free--;
		}
	}
}
