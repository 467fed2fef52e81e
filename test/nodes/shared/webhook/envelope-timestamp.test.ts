// parseTimestamp against the rule (RFC 3339 §5.6 with its note; no zone = UTC): every accepted
// spelling of a generated instant reads as that instant, computed here from its parts.
import * as fc from 'fast-check';

import { parseTimestamp } from '../../../../nodes/shared/webhook/envelope';
import { SIGNING_KEY, envelope, postSigned } from '../../ConsentFlowTrigger/helpers';
import { useTriggerHarness } from '../../ConsentFlowTrigger/trigger-harness';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const instant = fc.record({
	year: fc.integer({ min: 1970, max: 2200 }),
	month: fc.integer({ min: 1, max: 12 }),
	day: fc.integer({ min: 1, max: 31 }),
	hour: fc.integer({ min: 0, max: 23 }),
	minute: fc.integer({ min: 0, max: 59 }),
	second: fc.integer({ min: 0, max: 59 }),
	millis: fc.integer({ min: 0, max: 999 }),
	offset: fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
});

const spelling = fc.record({
	separator: fc.constantFrom('T', 't', ' '),
	zone: fc.constantFrom('Z', 'z', '+hh:mm', '+hhmm', 'none'),
	fraction: fc.constantFrom('none', 'ms', 'long'),
});

/** Days in a month of the proleptic Gregorian calendar. */
const daysIn = (year: number, month: number) =>
	[
		31,
		year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28,
		31,
		30,
		31,
		30,
		31,
		31,
		30,
		31,
		30,
		31,
	][month - 1];

describe('parseTimestamp', () => {
	it('reads every accepted spelling as the instant it names', () => {
		fc.assert(
			fc.property(instant, spelling, (t, s) => {
				const valid = t.day <= daysIn(t.year, t.month);
				const offset = s.zone === 'Z' || s.zone === 'z' || s.zone === 'none' ? 0 : t.offset;
				const sign = offset < 0 ? '-' : '+';
				const [oh, om] = [Math.floor(Math.abs(offset) / 60), Math.abs(offset) % 60];
				const zone =
					s.zone === '+hh:mm'
						? `${sign}${pad(oh)}:${pad(om)}`
						: s.zone === '+hhmm'
							? `${sign}${pad(oh)}${pad(om)}`
							: s.zone === 'none'
								? ''
								: s.zone;
				const fraction =
					s.fraction === 'none'
						? ''
						: s.fraction === 'ms'
							? `.${pad(t.millis, 3)}`
							: `.${pad(t.millis, 3)}987654`;
				const text = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}${s.separator}${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${fraction}${zone}`;
				const millis = s.fraction === 'none' ? 0 : t.millis;
				const expected = valid
					? Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, millis) -
						offset * 60000
					: null;
				expect(parseTimestamp(text)).toBe(expected);
			}),
			{ numRuns: 3000 },
		);
	});

	it.each([
		['2026-11-22', 'a date alone'],
		['2026-11-22T10', 'an hour alone'],
		['2026-11-22T10:00:00 Z', 'a space before the zone'],
		['2026-11-22  10:00:00Z', 'two spaces'],
		['2026-11-22T10:00:00ZZ', 'two zones'],
		['2026-11-22T10:00:00+1:00', 'a one-digit offset'],
		['2026-11-22T10:00:00.Z', 'an empty fraction'],
		['1763812800', 'epoch seconds'],
		['+002026-11-22T10:00:00Z', 'an expanded year'],
		[' 2026-11-22T10:00:00Z', 'leading space'],
		['2026-11-22T10:00:00Z\n', 'trailing newline'],
	])('refuses %s (%s)', (text) => {
		expect(parseTimestamp(text)).toBeNull();
	});

	it('uses no local-time API', () => {
		const spies = [
			jest.spyOn(Date, 'parse'),
			jest.spyOn(Date.prototype, 'getTimezoneOffset'),
			jest.spyOn(Date.prototype, 'getHours'),
			jest.spyOn(Date.prototype, 'getDate'),
			jest.spyOn(Date.prototype, 'getFullYear'),
		];
		try {
			expect(parseTimestamp('2026-11-23T07:49:46')).toBe(Date.UTC(2026, 10, 23, 7, 49, 46));
			for (const spy of spies) expect(spy).not.toHaveBeenCalled();
		} finally {
			for (const spy of spies) spy.mockRestore();
		}
	});
});

describe('Maximum Age over HTTP', () => {
	const harness = useTriggerHarness();

	it('emits current deliveries with lowercase, space-separated and zone-less timestamps', async () => {
		const h = await harness({ parameters: { options: { maxAgeSeconds: 300 } } });
		const now = new Date().toISOString();
		for (const timestamp of [
			now.replace('T', 't').replace('Z', 'z'),
			now.replace('T', ' '),
			now.replace('Z', ''),
		]) {
			const r = await postSigned(h.url, envelope('consent.data', { timestamp }), {
				secret: SIGNING_KEY,
			});
			expect(r.json).toMatchObject({ status: 'emitted' });
		}
		expect(h.executions).toHaveLength(3);
	});
});
