import type { INodePropertyOptions } from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { CONSENT_EVENTS, OUTPUT_NAMES } from '../../../../nodes/shared/webhook/envelope';
import {
	CONFIGURED_OUTPUTS,
	EVENT_TABLE,
	UNRECOGNISED_ENTRY,
	UNRECOGNISED_INDEX,
	normaliseEventSelection,
} from '../../../../nodes/shared/webhook/events';
import { PUBLISHED_EVENTS } from '../../ConsentFlowTrigger/helpers';

const PUBLISHED = PUBLISHED_EVENTS;

describe('the one event table feeds the whole description', () => {
	const d = new ConsentFlowTrigger().description;
	const events = d.properties.find((p) => p.name === 'events');
	const options = (events?.options ?? []) as INodePropertyOptions[];

	it('has the ten published events, in order, each with a name and a description', () => {
		expect(EVENT_TABLE.map((e) => e.value)).toEqual(PUBLISHED);
		for (const entry of [...EVENT_TABLE, UNRECOGNISED_ENTRY]) {
			expect(entry.displayName).toMatch(/^[A-Z][A-Za-z ]+$/);
			expect(entry.description.length).toBeGreaterThan(10);
		}
		expect(CONSENT_EVENTS).toEqual(PUBLISHED);
	});

	it('outputs: computed (CONFIGURED_OUTPUTS); with everything selected, one per table entry plus Unrecognised, short names', () => {
		expect(d.outputs).toBe(CONFIGURED_OUTPUTS);
		expect(d.outputNames).toBeUndefined();
		// Issue 13: names a builder can tell apart on the canvas; the event names stay in the items.
		expect(OUTPUT_NAMES).toEqual([
			'Created',
			'Accepted',
			'Rejected',
			'Deleted',
			'Data',
			'Expired',
			'Expired No Data',
			'User Timed Out',
			'No Tax Data',
			'No Income Data',
			'Unrecognised',
		]);
		expect(new Set(OUTPUT_NAMES).size).toBe(OUTPUT_NAMES.length);
		expect(UNRECOGNISED_INDEX).toBe(10);
	});

	it('Events: one option per table entry (name, value, description) and all of them by default', () => {
		const expected = [...EVENT_TABLE, UNRECOGNISED_ENTRY].map((e) => ({
			name: e.displayName,
			value: e.value,
			// each option names the event as sent (and kept in the item) and the output it opens
			description: `${e.description} (${e.value === 'unrecognised' ? 'any other event' : e.value}; output ${e.outputName})`,
		}));
		expect(options.find((o) => o.value === 'consent.timedOutDataFailed')?.description).toBe(
			'An accepted consent is no longer valid and its data could not be fetched (consent.timedOutDataFailed; output Expired No Data)',
		);
		expect([...options].sort((a, b) => String(a.value).localeCompare(String(b.value)))).toEqual(
			expected.sort((a, b) => a.value.localeCompare(b.value)),
		);
		// Shown in alphabetical order of their names, as n8n's lint wants for option lists.
		const names = options.map((o) => o.name);
		expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
		expect(events?.default).toEqual([...PUBLISHED, 'unrecognised']);
	});
});

describe('normaliseEventSelection', () => {
	const values = (value: unknown) => {
		const selection = normaliseEventSelection(value);
		return selection.ok ? [...selection.values].sort() : selection.message;
	};

	it.each([
		[
			['consent.data', 'unrecognised'],
			['consent.data', 'unrecognised'],
		],
		['Consent.Data, UNRECOGNISED', ['consent.data', 'unrecognised']],
		[' user.timedOut ,, ', ['user.timedOut']],
		[['tax.dataFailed,income.dataFailed'], ['income.dataFailed', 'tax.dataFailed']],
		['', []],
		[[], []],
		[PUBLISHED_EVENTS.join(','), [...PUBLISHED_EVENTS].sort()],
	])('%j selects %j', (value, expected) => {
		expect(values(value)).toEqual(expected);
	});

	it.each([
		['consent.dat'],
		[['consent.data', null]],
		[{ events: 'consent.data' }],
		[undefined],
		['consent.data unrecognised'],
	])('%j is a configuration error naming Events', (value) => {
		expect(values(value)).toMatch(/^The trigger is misconfigured: Events contains /);
	});
});
