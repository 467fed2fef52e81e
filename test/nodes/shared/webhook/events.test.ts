// events.ts: the one event table, and the output rule as one self-contained function, evaluated by
// n8n from its source (CONFIGURED_OUTPUTS) and called as is by execute(); n8n's evaluation itself is
// also checked by the e2e suite.
import fc from 'fast-check';
import type { INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { n8nComputedOutputs } from '../../../support/computed-outputs';
import {
	ALL_EVENT_OPTIONS,
	CONSENT_EVENTS,
	CONFIGURED_OUTPUTS,
	EVENT_TABLE,
	SINGLE_OUTPUT_NAME,
	UNRECOGNISED_ENTRY,
	eventOption,
	normaliseEventSelection,
	outputsOf,
	readEvents,
} from '../../../../nodes/shared/webhook/events';
import { OUTPUT_NAMES, OUTPUT_TABLE, UNRECOGNISED_INDEX } from '../../../support/outputs';
import { PUBLISHED_EVENTS } from '../../ConsentFlowTrigger/helpers';

const PUBLISHED = PUBLISHED_EVENTS;

describe('the one event table feeds the whole description', () => {
	const d = new ConsentFlowTrigger().description;
	const events = d.properties.find((p) => p.name === 'events');
	const options = (events?.options ?? []) as INodePropertyOptions[];

	it('has the ten published events, in order, each with a name and a description', () => {
		expect(EVENT_TABLE.map((e) => e.value)).toEqual(PUBLISHED);
		for (const entry of [...EVENT_TABLE, UNRECOGNISED_ENTRY]) {
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
		// the option's name is the event's, spelt out
		expect(options.map((o) => o.name).sort()).toEqual([
			'Consent Accepted',
			'Consent Created',
			'Consent Data',
			'Consent Deleted',
			'Consent Rejected',
			'Consent Timed Out',
			'Consent Timed Out Data Failed',
			'Income Data Failed',
			'Tax Data Failed',
			'Unrecognised Delivery',
			'User Timed Out',
		]);
		const expected = [...EVENT_TABLE, UNRECOGNISED_ENTRY].map((e) => ({
			name: options.find((o) => o.value === e.value)?.name,
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

describe('readEvents, the one reader of Events', () => {
	const options = ['consent.data', 'unrecognised', 'tax.dataFailed'];

	it('chooses option values in any case, once each, in order; keeps the rest as it was', () => {
		expect(readEvents(' Consent.Data ,, TAX.datafailed,consent.data', options)).toEqual({
			chosen: ['consent.data', 'tax.dataFailed'],
			unknown: [],
		});
		expect(readEvents(['x, unrecognised', 7, null], options)).toEqual({
			chosen: ['unrecognised'],
			unknown: ['x', 7, null],
		});
		expect(readEvents(undefined, options)).toEqual({ chosen: [], unknown: [undefined] });
		expect(readEvents([], options)).toEqual({ chosen: [], unknown: [] });
	});

	// Issue 44: the outputs drawn and the deliveries let through come from the same reading.
	it('outputs and deliveries agree on any Events value: what is selected is what is shown', () => {
		const name = fc.oneof(
			fc.constantFrom(...OUTPUT_TABLE.map((o) => o.value)),
			fc.constantFrom('nothing.known', '', ' ', '={{ 1 }}'),
		);
		const cased = fc
			.tuple(name, fc.boolean(), fc.constantFrom('', ' ', '  '))
			.map(([n, upper, pad]) => `${pad}${upper ? n.toUpperCase() : n}${pad}`);
		const value = fc.oneof(
			fc.array(cased, { maxLength: 5 }).map((names) => names.join(',')),
			fc.array(fc.oneof(cased, fc.constant(null)), { maxLength: 5 }),
		);
		fc.assert(
			fc.property(value, (events) => {
				const shown = outputsOf({ events }, OUTPUT_TABLE, 'Event', readEvents).map(
					(o) => o.displayName,
				);
				const selection = normaliseEventSelection(events);
				const chosen = readEvents(events, ALL_EVENT_OPTIONS).chosen;
				const expected = OUTPUT_TABLE.filter((o) => chosen.includes(o.value)).map((o) => o.name);
				expect(shown).toEqual(expected.length > 0 ? expected : [...OUTPUT_NAMES]);
				if (selection.ok) expect([...selection.values].sort()).toEqual([...chosen].sort());
				else expect(readEvents(events, ALL_EVENT_OPTIONS).unknown.length).toBeGreaterThan(0);
			}),
			{ numRuns: 300 },
		);
	});
});

// what n8n makes of the expression: the function's source alone, with no module scope to close over
const byN8n = (parameters: INodeParameters, typeVersion: number) =>
	n8nComputedOutputs(new ConsentFlowTrigger(), 'consentFlowTrigger', parameters, typeVersion);

describe('outputsOf', () => {
	const cases: Array<[INodeParameters, number]> = [
		[{}, 1.1],
		[{ outputMode: 'single' }, 1],
		[{ events: ['consent.data', 'UNRECOGNISED'] }, 1],
		[{ events: ' tax.dataFailed , consent.created' }, 1.1],
		[{ events: 'Consent.Rejected' }, 1],
		[{ events: ['nothing.known'] }, 1],
		[{ events: ['tax.dataFailed,income.dataFailed', 7] }, 1.1],
	];

	it.each(cases)('n8n evaluating its source gives what the call gives: %j (version %p)', (p, v) => {
		expect(byN8n(p, v)).toEqual(outputsOf(p, OUTPUT_TABLE, SINGLE_OUTPUT_NAME, readEvents));
	});

	it('selected events in output order, one for all, or every output when nothing is read', () => {
		const names = (p?: Record<string, unknown>) =>
			outputsOf(p, OUTPUT_TABLE, SINGLE_OUTPUT_NAME, readEvents).map(
				(output) => output.displayName,
			);
		expect(names({ events: 'consent.data,consent.created' })).toEqual(['Created', 'Data']);
		expect(names({ events: ['consent.data'], outputMode: 'single' })).toEqual(['Event']);
		expect(names({ events: '={{ $json.x }}' })).toEqual([...OUTPUT_NAMES]);
		expect(outputsOf({}, OUTPUT_TABLE, SINGLE_OUTPUT_NAME, readEvents)[0]).toEqual({
			type: 'main',
			displayName: 'Created',
		});
	});

	it('eventOption: a known event is its own option, anything else Unrecognised', () => {
		expect(eventOption('consent.data')).toBe('consent.data');
		expect(eventOption('consent.renewed')).toBe('unrecognised');
		expect(eventOption(null)).toBe('unrecognised');
	});
});

describe('CONFIGURED_OUTPUTS', () => {
	it("is the function's source called with $parameter and the table", () => {
		expect(CONFIGURED_OUTPUTS.startsWith(`={{(${outputsOf.toString()})($parameter, `)).toBe(true);
		expect(CONFIGURED_OUTPUTS.endsWith(`, ${readEvents.toString()})}}`)).toBe(true);
	});

	it('holds no "}}" before its end, which would end the expression early', () => {
		const inner = CONFIGURED_OUTPUTS.slice('={{'.length, -'}}'.length);
		expect(inner).not.toContain('}}');
	});
});
