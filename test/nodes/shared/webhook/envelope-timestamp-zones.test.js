'use strict';
// Maximum Age must not depend on the server's time zone. The freshness check runs in two child
// processes, TZ=UTC and TZ=Europe/Oslo (UTC+1 in November), on the same cases; each child also
// reports its own UTC offset so the test proves the two zones really differed.
//
// The rule (RFC 3339 §5.6 and its note, plus ISO 8601's reduced forms): `T`, `t` or a space
// between date and time; `Z`, `z` or a numeric offset; a date-time without a zone is UTC.
const { runInChild } = require('../../ConsentFlowTrigger/ts-child');

const NOW = '2026-11-23T07:49:46Z';
const MAX_AGE = 300;

/** [timestamp as sent, verdict under the rule with now = NOW and a 300 s window] */
const CASES = [
	['2026-11-23T07:49:46Z', 'fresh'],
	['2026-11-23T07:49:46', 'fresh'], // no zone: UTC
	['2026-11-23T07:49:46.250', 'fresh'],
	['2026-11-23T06:49:46', 'stale'], // an hour old in UTC (fresh if read as Oslo time)
	['2026-11-23T08:49:46', 'stale'], // an hour ahead in UTC (fresh if read as Oslo time)
	['2026-11-23t07:49:46z', 'fresh'], // RFC 3339 note: lowercase allowed
	['2026-11-23 07:49:46Z', 'fresh'], // RFC 3339 note: a space instead of T
	['2026-11-23 07:49:46', 'fresh'],
	['2026-11-23T08:49:46+01:00', 'fresh'],
	['2026-11-23T07:49:46-00:00', 'fresh'],
	['2026-11-23T02:19:46-05:30', 'fresh'],
	['2026-11-23T07:49:46.123456789Z', 'fresh'],
	['2026-11-23T07:47Z', 'fresh'], // ISO 8601 without seconds
	['2026-11-23T07:40:00Z', 'stale'],
	['2026-11-23', 'unparsable'], // a date alone
	['2026-11-23T25:00:00Z', 'unparsable'],
	['2026-02-30T07:49:46Z', 'unparsable'],
	['2026-11-23T07:49:46+24:00', 'unparsable'],
	['23.11.2026 07:49', 'unparsable'],
];

const CHILD = `(envelope) => ({
	offset: new Date(2026, 10, 23, 12).getTimezoneOffset(),
	verdicts: ${JSON.stringify(CASES.map(([timestamp]) => timestamp))}.map((timestamp) =>
		envelope.parseTimestamp(timestamp) === null
			? 'unparsable'
			: envelope.isStale({ timestamp, hasTimestamp: true }, ${MAX_AGE}, Date.parse('${NOW}'))
				? 'stale'
				: 'fresh'),
})`;

describe('Maximum Age reads timestamps the same in every server time zone', () => {
	const results = {};

	beforeAll(() => {
		for (const TZ of ['UTC', 'Europe/Oslo']) {
			results[TZ] = runInChild({ TZ }, 'nodes/shared/webhook/envelope.ts', CHILD);
		}
	}, 60000);

	it('the two children really ran in different zones', () => {
		expect(results.UTC.offset).toBe(0);
		expect(results['Europe/Oslo'].offset).toBe(-60);
	});

	it.each(['UTC', 'Europe/Oslo'])('under TZ=%s every case follows the rule', (TZ) => {
		const got = CASES.map(([timestamp], i) => [timestamp, results[TZ].verdicts[i]]);
		expect(got).toEqual(CASES);
	});
});
