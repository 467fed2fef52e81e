/**
 * The trigger's outputs follow Events and Outputs (issue 13): computed by n8n from the expression
 * CONFIGURED_OUTPUTS. Checked by evaluating that expression with n8n-workflow itself (a Workflow
 * over the node, NodeHelpers.getNodeOutputs, as n8n-core's execution context does) against
 * `outputLayout`, the same rule written again in TypeScript, on fixed cases taken from the issue
 * and on arbitrary selections (fast-check).
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';
import { n8nComputedOutputs } from '../../support/computed-outputs';
import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import {
	ALL_EVENT_OPTIONS,
	SINGLE_OUTPUT_NAME,
	staticOutputNames,
} from '../../../nodes/shared/webhook/events';
import { OUTPUT_NAMES, OUTPUT_TABLE } from '../../support/outputs';

const nodeType = new ConsentFlowTrigger();

/**
 * The rule of CONFIGURED_OUTPUTS written again in plain TypeScript (the reference the expression
 * is compared with): One for All Events → one output; otherwise the selected events in output
 * order, matched case-insensitively, from an array or a comma-separated string; a selection that
 * cannot be read (an expression, or nothing selected) keeps every output.
 */
function outputLayout(events: unknown, mode: unknown): string[] {
	if (mode === 'single') return [SINGLE_OUTPUT_NAME];
	let picked: unknown[] = [];
	if (Array.isArray(events)) picked = events;
	else if (typeof events === 'string' && !events.startsWith('=')) picked = events.split(',');
	const wanted = new Set(picked.map((value) => String(value).trim().toLowerCase()));
	const chosen = OUTPUT_TABLE.filter((output) => wanted.has(output.value.toLowerCase()));
	return (chosen.length > 0 ? chosen : OUTPUT_TABLE).map((output) => output.name);
}

function n8nOutputs(parameters: INodeParameters): string[] {
	const outputs = n8nComputedOutputs(nodeType, 'n8n-nodes-sbl.consentFlowTrigger', parameters);
	return (outputs as Array<{ type: string; displayName: string }>).map((output) => {
		expect(output.type).toBe('main');
		return output.displayName;
	});
}

describe('the trigger outputs, as n8n computes them', () => {
	test('a new node (every event selected): the eleven outputs in the fixed order', () => {
		expect(n8nOutputs({})).toEqual([...OUTPUT_NAMES]);
	});

	test.each([
		[['consent.data'], ['Data']],
		[
			['consent.timedOutDataFailed', 'consent.timedOut'],
			['Expired', 'Expired No Data'],
		],
		[
			['unrecognised', 'consent.created'],
			['Created', 'Unrecognised'],
		],
		// given by hand as one string, odd case and spaces (as the Events parameter accepts it)
		[' Consent.Data , income.dataFailed', ['Data', 'No Income Data']],
		// nothing selected: every output stays (nothing would start the workflow anyway)
		[[], [...OUTPUT_NAMES]],
	])('Events %j → %j', (events, expected) => {
		expect(n8nOutputs({ events } as INodeParameters)).toEqual(expected);
		expect(outputLayout(events, 'perEvent')).toEqual(expected);
	});

	test('Events given by an expression: n8n resolves it for $parameter (routing follows what n8n computed)', () => {
		expect(n8nOutputs({ events: '={{ ["consent.data", "tax.dataFailed"] }}' })).toEqual([
			'Data',
			'No Tax Data',
		]);
	});

	test('One for All Events: one output named Event, whatever is selected', () => {
		expect(n8nOutputs({ outputMode: 'single' })).toEqual(['Event']);
		expect(n8nOutputs({ outputMode: 'single', events: ['consent.data'] })).toEqual(['Event']);
	});

	test('any selection, any mode: n8n and the TypeScript rule agree; outputs keep the table order', () => {
		fc.assert(
			fc.property(
				fc.subarray([...ALL_EVENT_OPTIONS]),
				fc.constantFrom('perEvent', 'single', undefined),
				fc.boolean(),
				(selected, mode, asString) => {
					const events = asString ? selected.join(',') : selected;
					const parameters: INodeParameters = { events };
					if (mode !== undefined) parameters.outputMode = mode;
					const computed = n8nOutputs(parameters);
					expect(computed).toEqual(outputLayout(events, mode));
					if (mode !== 'single' && selected.length > 0) {
						const order = OUTPUT_TABLE.filter((o) => selected.includes(o.value)).map((o) => o.name);
						expect(computed).toEqual(order);
					}
				},
			),
			{ numRuns: 200 },
		);
	});
});

describe('staticOutputNames (execute() computes the outputs without evaluating CONFIGURED_OUTPUTS)', () => {
	const event = fc.constantFrom(
		...ALL_EVENT_OPTIONS,
		'Consent.Data',
		' tax.dataFailed ',
		'no.such',
		'',
	);
	const eventsValue = fc.oneof(
		fc.array(event, { maxLength: 12 }),
		fc.array(event, { maxLength: 6 }).map((list) => list.join(',')),
		fc.constant(undefined),
	);
	const modeValue = fc.constantFrom('perEvent', 'single', undefined, 'other');

	test('property: equal to n8n evaluating CONFIGURED_OUTPUTS, for every selection without expressions', () => {
		fc.assert(
			fc.property(eventsValue, modeValue, (events, outputMode) => {
				const parameters: Record<string, unknown> = {};
				if (events !== undefined) parameters.events = events;
				if (outputMode !== undefined) parameters.outputMode = outputMode;
				expect(staticOutputNames(parameters)).toEqual(n8nOutputs(parameters as INodeParameters));
			}),
			{ numRuns: 150 },
		);
	});

	test('null (ask n8n) when Events or Outputs holds an expression', () => {
		expect(staticOutputNames({ events: '={{ ["consent.data"] }}' })).toBeNull();
		expect(staticOutputNames({ events: ['consent.data', '={{ "tax.dataFailed" }}'] })).toBeNull();
		expect(staticOutputNames({ outputMode: '={{ "single" }}' })).toBeNull();
		expect(staticOutputNames(undefined)).toEqual([...OUTPUT_NAMES]);
	});
});
