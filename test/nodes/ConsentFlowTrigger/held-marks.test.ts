import fc from 'fast-check';

import { HeldMarks, MAX_MARKS } from '../../../nodes/ConsentFlowTrigger/held-marks';

const NOW = 1_800_000_000_000;
const LATER = NOW + 60_000;

/** What a second process learns of `from`'s lines. */
function learnt(from: HeldMarks, now = NOW): HeldMarks {
	const other = new HeldMarks();
	other.learn(from.lines(now), now);
	return other;
}

describe('HeldMarks: runs held under When the Workflow Finishes, as every process sees them', () => {
	it('a hold is seen elsewhere until its release; the lines name key, hold and time', () => {
		const a = new HeldMarks();
		a.hold(['k1', 'k2'], 'n1', LATER);
		expect(a.lines(NOW)).toEqual([`k1 n1 ${LATER}`, `k2 n1 ${LATER}`]);
		expect(learnt(a).held('k1', NOW)).toBe(true);
		a.release(['k1'], 'n1');
		expect(a.lines(NOW)).toEqual([`k1 n1 ${LATER} r`, `k2 n1 ${LATER}`]);
		const b = learnt(a);
		expect([b.held('k1', NOW), b.held('k2', NOW)]).toEqual([false, true]);
	});

	it('a release wins over the same hold; a later hold of the key (a retry) wins over an earlier release', () => {
		const b = new HeldMarks();
		b.learn([`k n1 ${LATER} r`], NOW);
		b.learn([`k n1 ${LATER}`], NOW);
		expect(b.held('k', NOW)).toBe(false);
		b.learn([`k n2 ${LATER + 1}`], NOW);
		expect(b.held('k', NOW)).toBe(true);
		b.learn([`k n1 ${LATER} r`], NOW);
		expect(b.held('k', NOW)).toBe(true);
	});

	it("another hold's release lets nothing go", () => {
		const a = new HeldMarks();
		a.hold(['k'], 'n1', LATER);
		a.release(['k'], 'n2');
		expect(a.held('k', NOW)).toBe(true);
	});

	it('a mark past its time holds nothing and is not stored; a dropped key is not stored', () => {
		const a = new HeldMarks();
		a.hold(['old'], 'n1', NOW);
		a.hold(['done'], 'n2', LATER);
		a.drop(['done']);
		expect(a.held('old', NOW)).toBe(false);
		expect(a.lines(NOW)).toEqual([]);
		expect(a.stored(NOW)).toBeUndefined();
	});

	it(`keeps at most ${MAX_MARKS}, the oldest going first`, () => {
		const a = new HeldMarks();
		a.learn(
			Array.from({ length: MAX_MARKS + 5 }, (_, i) => `k${i} n ${LATER}`),
			NOW,
		);
		const lines = a.lines(NOW);
		expect(lines).toHaveLength(MAX_MARKS);
		expect([a.held('k4', NOW), a.held('k5', NOW)]).toEqual([false, true]);
	});

	it('the stored text is learnt once; read back unchanged it is not parsed again', () => {
		const a = new HeldMarks();
		a.hold(['k'], 'n1', LATER);
		const text = a.stored(NOW)!;
		const b = new HeldMarks();
		b.learnStored({ held: text }, NOW);
		expect(b.held('k', NOW)).toBe(true);
		b.release(['k'], 'n1');
		b.learnStored({ held: text }, NOW);
		expect(b.held('k', NOW)).toBe(false);
		for (const stored of [undefined, null, {}, { held: 3 }]) {
			expect(() => b.learnStored(stored, NOW)).not.toThrow();
		}
	});

	it('anything but a well-formed line is left out (property)', () => {
		fc.assert(
			fc.property(fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null))), (lines) => {
				const b = new HeldMarks();
				b.learn(lines, NOW);
				const kept = lines.filter(
					(line) =>
						typeof line === 'string' &&
						/^\S+ \S+ \d{1,15}( r)?$/.test(line) &&
						Number(line.split(' ')[2]) > NOW,
				);
				expect(b.lines(NOW).length).toBe(new Set(kept.map((l) => String(l).split(' ')[0])).size);
			}),
		);
	});
});
