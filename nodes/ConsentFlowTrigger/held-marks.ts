// Runs held under When the Workflow Finishes, seen by every process: marks saved with the keys
// before the run starts (docs/architecture.md, "Delivery memory"). A mark only ever answers 409.

/** One held run's mark: whose (its hold's nonce), until when, and whether its run let it go. */
interface Mark {
	nonce: string;
	until: number;
	released: boolean;
}

/** At most this many marks per trigger are kept; the oldest goes first (its copies may run twice). */
export const MAX_MARKS = 1000;

const LINE = /^(\S+) (\S+) (\d{1,15})( r)?$/;

export class HeldMarks {
	private readonly marks = new Map<string, Mark>();

	lastSeen?: string;

	/** The newer hold of a key wins; a hold's release wins over the same hold's mark. */
	private merge(key: string, mark: Mark): void {
		const old = this.marks.get(key);
		if (old === undefined || mark.until > old.until) {
			this.marks.delete(key);
			this.marks.set(key, mark);
		} else if (old.nonce === mark.nonce && mark.released && !old.released) {
			this.marks.set(key, { ...old, released: true });
		}
	}

	/** Merges stored or sent lines (`key nonce until`, ` r` once released); malformed or past ones are left out. */
	learn(lines: readonly unknown[], now: number): void {
		for (const line of lines) {
			const match = typeof line === 'string' ? LINE.exec(line) : null;
			if (match === null) continue;
			const [, key, nonce, until, released] = match;
			this.merge(key, { nonce, until: Number(until), released: released !== undefined });
		}
		for (const [key, mark] of this.marks) if (mark.until <= now) this.marks.delete(key);
		for (const key of this.marks.keys()) {
			if (this.marks.size <= MAX_MARKS) break;
			this.marks.delete(key);
		}
	}

	/** Learns the `held` lines of what is stored, unless they are the ones last seen (or written) here. */
	learnStored(stored: unknown, now: number): void {
		const held = (stored as { held?: unknown } | null | undefined)?.held;
		if (typeof held !== 'string' || held === this.lastSeen) return;
		this.lastSeen = held;
		this.learn(held.split('\n'), now);
	}

	hold(keys: readonly string[], nonce: string, until: number): void {
		for (const key of keys) this.merge(key, { nonce, until, released: false });
	}

	release(keys: readonly string[], nonce: string): void {
		for (const key of keys) {
			const mark = this.marks.get(key);
			if (mark?.nonce === nonce) this.marks.set(key, { ...mark, released: true });
		}
	}

	drop(keys: readonly string[]): void {
		for (const key of keys) this.marks.delete(key);
	}

	held(key: string, now: number): boolean {
		const mark = this.marks.get(key);
		return mark !== undefined && !mark.released && mark.until > now;
	}

	stored(now: number): string | undefined {
		const lines = this.lines(now);
		if (lines.length > 0) this.lastSeen = lines.join('\n');
		return lines.length > 0 ? this.lastSeen : undefined;
	}

	/** The current lines, newest last; only `keys` of hold `nonce` when given. */
	lines(now: number, only?: { keys: readonly string[]; nonce: string }): string[] {
		const lines: string[] = [];
		for (const [key, { nonce, until, released }] of this.marks) {
			if (until <= now || (only && (only.nonce !== nonce || !only.keys.includes(key)))) continue;
			lines.push(`${key} ${nonce} ${until}${released ? ' r' : ''}`);
		}
		return lines.slice(-MAX_MARKS);
	}
}
