// events.ts: the output rule is one self-contained function, evaluated by n8n from its source
// (CONFIGURED_OUTPUTS) and called as is by execute(). n8n's evaluation itself is checked in
// test/nodes/ConsentFlowTrigger/outputs.test.ts and by the e2e suite.
import type { INodeParameters } from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { n8nComputedOutputs } from '../../../support/computed-outputs';
import {
	CONFIGURED_OUTPUTS,
	EVENTS,
	OUTPUT_NAMES,
	OUTPUT_TABLE,
	SINGLE_OUTPUT_NAME,
	eventCatalogue,
	outputsOf,
} from '../../../../nodes/shared/webhook/events';

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
	];

	it.each(cases)('n8n evaluating its source gives what the call gives: %j (version %p)', (p, v) => {
		expect(byN8n(p, v)).toEqual(outputsOf(p, v, OUTPUT_TABLE, SINGLE_OUTPUT_NAME));
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
