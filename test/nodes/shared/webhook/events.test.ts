// events.ts: the output rule is one self-contained function, evaluated by n8n from its source
// (CONFIGURED_OUTPUTS) and called as is by execute(). n8n's evaluation itself is checked in
// test/nodes/ConsentFlowTrigger/outputs.test.ts and by the e2e suite.
import {
	CONFIGURED_OUTPUTS,
	EVENTS,
	OUTPUT_NAMES,
	OUTPUT_TABLE,
	SINGLE_OUTPUT_NAME,
	eventCatalogue,
	outputsOf,
} from '../../../../nodes/shared/webhook/events';

// its source alone, as n8n has it: no module scope to close over
const fromSource = new Function(`return (${outputsOf.toString()});`)() as typeof outputsOf;

describe('outputsOf', () => {
	const cases: Array<[Record<string, unknown> | undefined, number | undefined]> = [
		[undefined, undefined],
		[{ outputMode: 'single' }, 1],
		[{ events: ['consent.data', 'UNRECOGNISED'] }, 1],
		[{ events: ' tax.dataFailed , consent.created' }, 1.1],
		[{ events: '={{ "consent.data" }}' }, 1],
		[{ events: ['nothing.known'] }, undefined],
	];

	it.each(cases)('its source alone gives what the function gives: %j (version %p)', (p, v) => {
		const expected = outputsOf(p, v, OUTPUT_TABLE, SINGLE_OUTPUT_NAME);
		expect(fromSource(p, v, OUTPUT_TABLE, SINGLE_OUTPUT_NAME)).toEqual(expected);
	});

	it('selected events in output order, one for all, or every output when nothing is read', () => {
		const names = (p?: Record<string, unknown>) =>
			outputsOf(p, 1, OUTPUT_TABLE, SINGLE_OUTPUT_NAME).map((output) => output.displayName);
		expect(names({ events: 'consent.data,consent.created' })).toEqual(['Created', 'Data']);
		expect(names({ events: ['consent.data'], outputMode: 'single' })).toEqual(['Event']);
		expect(names({ events: '={{ $json.x }}' })).toEqual([...OUTPUT_NAMES]);
		expect(outputsOf({}, 1, OUTPUT_TABLE, SINGLE_OUTPUT_NAME)[0]).toEqual({
			type: 'main',
			displayName: 'Created',
		});
	});

	it('a node version sees only the outputs it knows', () => {
		const later = [...OUTPUT_TABLE, { value: 'new.event', name: 'New', since: 2 }];
		expect(outputsOf({}, 1, later, 'Event')).toHaveLength(OUTPUT_TABLE.length);
		expect(outputsOf({}, 2, later, 'Event')).toHaveLength(OUTPUT_TABLE.length + 1);
	});
});

describe('CONFIGURED_OUTPUTS', () => {
	it("is the function's source called with $parameter, $nodeVersion and the table", () => {
		expect(
			CONFIGURED_OUTPUTS.startsWith(`={{(${outputsOf.toString()})($parameter, $nodeVersion, `),
		).toBe(true);
		expect(CONFIGURED_OUTPUTS).toBe(EVENTS.configuredOutputs);
	});

	it('holds no "}}" before its end, which would end the expression early', () => {
		const inner = CONFIGURED_OUTPUTS.slice('={{'.length, -'}}'.length);
		expect(inner).not.toContain('}}');
		expect(eventCatalogue([]).configuredOutputs.slice(3, -2)).not.toContain('}}');
	});
});
