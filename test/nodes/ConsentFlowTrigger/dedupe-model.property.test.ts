// The delivery memory against a second implementation of its rule, written from
// docs/architecture.md ("Delivery memory") with plain arrays and no shortcuts: keys only the
// database has go last, as seen now, once each; keys this process let go at the limit are not
// taken back from a database copy, keys it forgot are (read again, even unchanged); the newest
// Remembered Deliveries are kept; a key in either is a duplicate; a stored string the process
// wrote or merged last is not merged again. On any sequence of deliveries, look-ups, forgets,
// saves and reads of this or another process's writes, both must agree on every answer and on the
// keys held.
import fc from 'fast-check';

import { clampLimit, type StoredDedupe } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { freshDedupe, type Dedupe } from '../../support/fresh-modules';
import { recordForSave } from './helpers';

class Model {
	ids: string[] = [];
	letGo = new Set<string>();
	lastSeen: string | undefined;

	/** What the rule answers for `key` after merging `stored`; records `key` when asked to. */
	call(stored: StoredDedupe | undefined, key: string, limit: number, record: boolean): boolean {
		const fromDb: string[] = [];
		if (stored !== undefined && stored.keys !== this.lastSeen) {
			for (const k of stored.keys.split('\n'))
				if (k !== '' && !this.ids.includes(k) && !this.letGo.has(k) && !fromDb.includes(k))
					fromDb.push(k);
			this.lastSeen = stored.keys;
		}
		const all = [...this.ids, ...fromDb];
		const duplicate = all.includes(key);
		const recorded = record && !duplicate;
		const kept = (recorded ? [...all, key] : all).slice(-clampLimit(limit));
		for (const k of all) if (!kept.includes(k)) this.letGo.add(k);
		if (recorded) this.letGo.delete(key);
		this.ids = kept;
		return duplicate;
	}

	forget(key: string): void {
		this.ids = this.ids.filter((k) => k !== key);
		this.lastSeen = undefined;
	}

	/** n8n serialising static data: the keys now, remembered as written. */
	save(): StoredDedupe {
		const keys = this.ids.join('\n');
		this.lastSeen = keys;
		return { version: 3, keys };
	}
}

const key = fc.constantFrom('"a"', '"b"', '"c"', '"d"', '"e"', '"f"', '"g"', '"h"', '1', '2');
const source = fc.oneof(
	fc.constant({ from: 'none' as const }),
	fc.nat(20).map((back) => ({ from: 'own' as const, back })),
	fc.array(key, { maxLength: 8 }).map((keys) => ({ from: 'other' as const, keys })),
);
const op = fc.oneof(
	fc.record({ kind: fc.constant('record' as const), key, source }),
	fc.record({ kind: fc.constant('lookUp' as const), key, source }),
	fc.record({ kind: fc.constant('forget' as const), key }),
	fc.record({ kind: fc.constant('save' as const) }),
);

describe('the delivery memory agrees with a plain model of its rule', () => {
	// a new n8n process per test: a fresh copy of dedupe.ts, whose memory starts empty
	let memory: Dedupe;
	beforeEach(() => {
		memory = freshDedupe();
	});

	it('on any sequence of deliveries, look-ups, forgets, saves and database reads', () => {
		let run = 0;
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 60 }), (limit, ops) => {
				const memoryKey = `model-${run++}`;
				const model = new Model();
				// what each side wrote, oldest first (a request reads one of them, possibly an old one)
				const written: Array<{ real: StoredDedupe; model: StoredDedupe }> = [];
				for (const o of ops) {
					if (o.kind === 'forget') {
						memory.forgetDelivery(memoryKey, o.key);
						model.forget(o.key);
						continue;
					}
					if (o.kind === 'save') {
						const saved = recordForSave(memory, memoryKey, undefined, '"saved"', limit);
						model.call(undefined, '"saved"', limit, true);
						written.push({ real: JSON.parse(JSON.stringify(saved)), model: model.save() });
						continue;
					}
					const s = o.source;
					const pick =
						s.from === 'own' && written.length > 0
							? written[written.length - 1 - (s.back % written.length)]
							: undefined;
					const other =
						s.from === 'other' ? { version: 3 as const, keys: s.keys.join('\n') } : undefined;
					const real = memory.recordDeliveryShared(
						memoryKey,
						pick?.real ?? other,
						o.key,
						limit,
						o.kind === 'record',
					);
					const expected = model.call(pick?.model ?? other, o.key, limit, o.kind === 'record');
					expect(real.duplicate).toBe(expected);
					expect(real.state.ids).toEqual(model.ids);
				}
				for (const w of written) expect(w.real).toEqual(w.model);
			}),
			{ numRuns: 400 },
		);
	});
});
