/**
 * Rule tests of dedupe.ts written from its documented contract (state shape, size bound,
 * limit clamping, process memory), not from the implementation: each expectation is computed
 * here independently (sizes by JSON.stringify / Buffer.byteLength, windows by slicing).
 */
import {
	DEDUPE_KEY,
	DEDUPE_VERSION,
	DEFAULT_REMEMBERED,
	MAX_REMEMBERED,
	clampLimit,
	readRememberedIds,
} from '../../../nodes/ConsentFlowTrigger/dedupe';
import { freshDedupe, type Dedupe } from '../../support/fresh-modules';
import { maxStateBytes, recordDelivery, storedKeys as stored3 } from './helpers';
import { MAX_KEY_JSON_BYTES } from '../../../nodes/shared/webhook/webhook-id';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The longest key there is: `~h:` + 64 hex digits. */
const longestKey = (n: number) => `~h:${n.toString(16).padStart(64, '0')}`;

describe('constants', () => {
	it('match the documented values', () => {
		expect(DEDUPE_KEY).toBe('consentFlowDeliveries');
		expect(DEDUPE_VERSION).toBe(3);
		expect(DEFAULT_REMEMBERED).toBe(1000);
		expect(MAX_REMEMBERED).toBe(10000);
		expect(jsonBytes(longestKey(0))).toBe(MAX_KEY_JSON_BYTES);
	});
});

describe('maxStateBytes', () => {
	it.each([1, 2, 3, 10, 1000])(
		'is exactly the JSON size of a state of %i longest keys',
		(limit) => {
			const ids = Array.from({ length: limit }, (_, i) => longestKey(i));
			expect(maxStateBytes(limit)).toBe(jsonBytes(stored3(ids)));
		},
	);

	it('bounds every state recordDelivery produces', () => {
		let state: object | null | undefined;
		for (let i = 0; i < 12; i++) {
			// keys as long as they get (plain, 67 characters: 69 bytes of JSON)
			state = recordDelivery(state, `${i}`.padStart(67, 'k'), 5).next;
			expect(jsonBytes(state)).toBeLessThanOrEqual(maxStateBytes(5));
		}
		expect(jsonBytes(state)).toBe(maxStateBytes(5));
	});
});

describe('readRememberedIds: which stored strings are keys (JSON at most MAX_KEY_JSON_BYTES)', () => {
	const stored = stored3;
	/** Independent rule: a string is a key iff its JSON text fits. */
	const fits = (id: string) => jsonBytes(id) <= MAX_KEY_JSON_BYTES;

	const cases: string[] = [
		'a'.repeat(MAX_KEY_JSON_BYTES - 2), // 67 plain characters: 69 bytes
		'a'.repeat(MAX_KEY_JSON_BYTES - 1), // 68: 70 bytes
		'a'.repeat(MAX_KEY_JSON_BYTES), // 69
		'a'.repeat(MAX_KEY_JSON_BYTES + 20),
		`${'a'.repeat(65)}"`, // the quote is escaped: 66 characters, 69 bytes
		`${'a'.repeat(66)}"`, // 67 characters, 70 bytes
		`${'a'.repeat(65)}\\`, // backslash escaped too
		`${'a'.repeat(66)}\\`,
		'é'.repeat(33), // 66 bytes + quotes = 68
		'é'.repeat(34), // 70
		'€'.repeat(22), // 3 bytes each: 66 + 2
		'€'.repeat(23), // 71
		`${'a'.repeat(62)}\u0001`, // \u0001: six bytes of JSON → 70
		`${'a'.repeat(61)}\u0001`, // 69
		`${'a'.repeat(66)}\u007f`, // DEL is not escaped: 69
		`${'a'.repeat(66)}\t`, // \t: two bytes → 70
		'~s:"x"',
		' ',
		'',
		'{}[]!#$%&()*+,-./:;<=>?@^_`|~',
	];

	it.each(cases.map((id) => [id.length, JSON.stringify(id).slice(0, 24), id] as const))(
		'a string of %i characters (%s…) is kept iff its JSON fits',
		(_length, _shown, id) => {
			expect(readRememberedIds(stored([id]))).toEqual(fits(id) && id !== '' ? [id] : []);
		},
	);

	it('agrees with the rule on strings of every length around the limit', () => {
		const alphabet = ['a', '"', '\\', 'é', '\u0000', '€', '😀', ' ', '~'];
		for (let length = 60; length <= 72; length++) {
			for (const odd of alphabet) {
				for (const at of [0, length - 1]) {
					const chars = Array.from({ length }, (_, i) => (i === at ? odd : 'b'));
					const id = chars.join('');
					expect([id, readRememberedIds(stored([id]))]).toEqual([id, fits(id) ? [id] : []]);
				}
			}
		}
	});

	it('keeps known keys whatever their size, and checks the others', () => {
		const long = 'x'.repeat(200);
		const known = new Set([long]);
		expect(readRememberedIds(stored([long, 'k', 'y'.repeat(200)]), known)).toEqual([long, 'k']);
		expect(readRememberedIds(stored([long]), new Set())).toEqual([]);
		expect(readRememberedIds(stored([long]))).toEqual([]);
	});

	it('reads nothing from non-objects, another version or keys that are no string', () => {
		expect(readRememberedIds({ version: 2, keys: 'a' })).toEqual([]);
		expect(readRememberedIds({ version: 1, ids: ['a'] })).toEqual([]);
		expect(readRememberedIds({ version: 3, ids: ['a'] })).toEqual([]);
		expect(readRememberedIds(undefined)).toEqual([]);
		expect(readRememberedIds(42)).toEqual([]);
		expect(readRememberedIds({})).toEqual([]);
		expect(readRememberedIds({ version: 3, keys: ['a'] })).toEqual([]);
	});
});

describe('clampLimit', () => {
	it.each([
		[1, 1],
		[MAX_REMEMBERED, MAX_REMEMBERED],
		[MAX_REMEMBERED + 1, MAX_REMEMBERED],
		[MAX_REMEMBERED - 1, MAX_REMEMBERED - 1],
		[1.999, 1],
		[0.5, 1],
		[-0.5, 1],
		['3.7', 3],
		[' 7 ', 7],
		['', 1],
		[null, 1],
		[true, 1],
		[Number.NaN, DEFAULT_REMEMBERED],
		[Infinity, DEFAULT_REMEMBERED],
		[-Infinity, DEFAULT_REMEMBERED],
		['Infinity', DEFAULT_REMEMBERED],
		[undefined, DEFAULT_REMEMBERED],
		[{}, DEFAULT_REMEMBERED],
	])('clampLimit(%p) is %p', (input, expected) => {
		expect(clampLimit(input)).toBe(expected);
	});
});

describe('recordDelivery windows (compared with a plain slice)', () => {
	it.each([1, 2, 3, 4, 7])('with limit %i keeps the newest ids, oldest first', (limit) => {
		let state: unknown;
		const seen: string[] = [];
		for (let i = 0; i < 10; i++) {
			const decision = recordDelivery(state, `id-${i}`, limit);
			expect(decision.duplicate).toBe(false);
			seen.push(`id-${i}`);
			expect(decision.next).toEqual(stored3(seen.slice(-limit)));
			state = decision.next;
		}
	});

	it('a duplicate returns no state', () => {
		expect(recordDelivery(stored3(['a', 'b', 'c']), 'b', 2)).toEqual({
			duplicate: true,
			next: null,
		});
	});

	it('uses the clamped limit (junk limit: the default)', () => {
		const ids = Array.from({ length: DEFAULT_REMEMBERED }, (_, i) => `k${i}`);
		const next = recordDelivery(stored3(ids), 'new', Number.NaN).next;
		expect(next).toEqual(stored3([...ids.slice(1), 'new']));
		expect(recordDelivery(stored3(['a']), 'b', 0).next).toEqual(stored3(['b']));
	});
});

// Each test below runs in a new n8n process: a fresh copy of dedupe.ts, its memory empty.
let recordDeliveryShared: Dedupe['recordDeliveryShared'];
const newProcess = () => {
	({ recordDeliveryShared } = freshDedupe());
};

describe('recordDeliveryShared', () => {
	beforeEach(newProcess);

	it('merges database ids the process lacks after its own (they are seen now), once each, and trims to the limit', () => {
		const first = recordDeliveryShared('m', stored3(['a', 'a', 'b']), 'c', 10);
		expect(first).toEqual({
			duplicate: false,
			state: { ids: ['a', 'b', 'c'] },
		});
		// database ids the process already has are not repeated
		const second = recordDeliveryShared('m', stored3(['z', 'c', 'a']), 'd', 10);
		expect(second.state.ids).toEqual(['a', 'b', 'c', 'z', 'd']);
	});

	it('returns the same state object on every call (n8n serialises it late)', () => {
		const a = recordDeliveryShared('same', undefined, 'a', 10);
		const b = recordDeliveryShared('same', undefined, 'b', 10);
		const c = recordDeliveryShared('same', undefined, 'a', 10);
		expect(b.state).toBe(a.state);
		expect(c.state).toBe(a.state);
		expect(c.duplicate).toBe(true);
		expect(a.state.ids).toEqual(['a', 'b']);
	});

	it('a duplicate still merges what the database had, within the limit', () => {
		recordDeliveryShared('d', undefined, 'x', 3);
		const dup = recordDeliveryShared('d', stored3(['p', 'q', 'x']), 'x', 3);
		expect(dup.duplicate).toBe(true);
		expect(dup.state.ids).toEqual(['x', 'p', 'q']);
		const dup2 = recordDeliveryShared('d', stored3(['r']), 'q', 2);
		expect(dup2.duplicate).toBe(true);
		expect(dup2.state.ids).toEqual(['q', 'r']);
	});

	it('a key only in the database is a duplicate; one only in the process too', () => {
		recordDeliveryShared('e', undefined, 'mine', 10);
		expect(recordDeliveryShared('e', stored3(['theirs']), 'theirs', 10).duplicate).toBe(true);
		expect(recordDeliveryShared('e', stored3([]), 'mine', 10).duplicate).toBe(true);
		expect(recordDeliveryShared('e', undefined, 'new', 10).duplicate).toBe(false);
	});

	it('drops oversize database strings but keeps ones the process already knows', () => {
		const long = 'y'.repeat(100);
		const r = recordDeliveryShared('f', stored3([long, 'ok']), 'n', 10);
		expect(r.state.ids).toEqual(['ok', 'n']);
	});

	it('remembers at most 1000 triggers, forgetting the one added first', () => {
		for (let i = 0; i < 1000; i++) recordDeliveryShared(`t${i}`, undefined, 'k', 10);
		// all 1000 still known
		expect(recordDeliveryShared('t0', undefined, 'k', 10).duplicate).toBe(true);
		expect(recordDeliveryShared('t999', undefined, 'k', 10).duplicate).toBe(true);
		// the 1001st evicts t0 (the first inserted), nothing else
		recordDeliveryShared('t1000', undefined, 'k', 10);
		expect(recordDeliveryShared('t1', undefined, 'k', 10).duplicate).toBe(true);
		expect(recordDeliveryShared('t0', undefined, 'k', 10).duplicate).toBe(false);
	});

	it('a new process (a restart) forgets everything', () => {
		recordDeliveryShared('g', undefined, 'k', 10);
		newProcess();
		expect(recordDeliveryShared('g', undefined, 'k', 10).duplicate).toBe(false);
	});
});

describe('recordDeliveryShared: two webhook processes writing one database (queue mode)', () => {
	beforeEach(newProcess);

	// Each "process" has its own memory key; every acceptance is followed by a save of the
	// whole state (what n8n does), which the other process reads on its next request.
	function run(limit: number, count: number) {
		let db: unknown = undefined;
		const ids = Array.from({ length: count }, (_, i) => `id-${i}`);
		ids.forEach((id, i) => {
			const { duplicate, state } = recordDeliveryShared(i % 2 === 0 ? 'P1' : 'P2', db, id, limit);
			expect(duplicate).toBe(false);
			db = stored3(state.ids);
		});
		return { ids, saved: readRememberedIds(db) };
	}

	it('the database keeps the newest ids of both processes at the limit', () => {
		const { ids, saved } = run(50, 400);
		expect(saved).toHaveLength(50);
		expect(new Set(saved)).toEqual(new Set(ids.slice(-50)));
	});

	it('below the limit the database holds every id of both', () => {
		const { ids, saved } = run(1000, 300);
		expect(new Set(saved)).toEqual(new Set(ids));
	});

	it('an id one process dropped at the limit is not taken back from an older database copy', () => {
		recordDeliveryShared('P', undefined, 'a', 2);
		recordDeliveryShared('P', undefined, 'b', 2);
		const { state } = recordDeliveryShared('P', undefined, 'c', 2); // drops a
		expect(state.ids).toEqual(['b', 'c']);
		const again = recordDeliveryShared('P', stored3(['a', 'b']), 'd', 2);
		expect(again.state.ids).toEqual(['c', 'd']);
	});
});
