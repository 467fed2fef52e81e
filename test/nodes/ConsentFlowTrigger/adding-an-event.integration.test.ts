/**
 * Issue 32, adding an event, through the node itself: with an 11th event in the table (a fixture,
 * since a version after today's newest), a signed delivery of it reaches a saved node of today's
 * versions exactly as before the addition — on Unrecognised, as an unrecognised item — and only a
 * node of the new version gets it on its own output. The HTTP harness follows n8n's webhook path.
 */
import type { TriggerEventEntry } from '../../../nodes/shared/webhook/events';

const NEW_EVENT: TriggerEventEntry = {
	value: 'consent.renewed',
	outputName: 'Renewed',
	displayName: 'Consent Renewed',
	description: 'An accepted consent was renewed',
	since: 1.2,
};

jest.mock('../../../nodes/shared/webhook/events', () => {
	const actual = jest.requireActual('../../../nodes/shared/webhook/events');
	const table = [...actual.EVENT_TABLE, NEW_EVENT];
	const events = actual.eventCatalogue(table);
	const outputTable = events.outputTable();
	return {
		...actual,
		EVENT_TABLE: table,
		EVENTS: events,
		CONSENT_EVENTS: table.map((entry: TriggerEventEntry) => entry.value),
		OUTPUT_TABLE: outputTable,
		OUTPUT_NAMES: outputTable.map((output: { name: string }) => output.name),
		CONFIGURED_OUTPUTS: events.configuredOutputs,
		UNRECOGNISED_INDEX: table.length,
		ALL_EVENT_OPTIONS: events.allOptions(),
		eventsProperties: events.eventsProperties,
		outputNameOf: events.outputNameOf,
		normaliseEventSelection: events.normaliseEventSelection,
		eventOption: events.eventOption,
	};
});

import { envelope, postSigned } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

describe('an 11th event, added for node version 1.2', () => {
	test.each([1, 1.1])(
		'a saved node of version %s gets it on Unrecognised (output 10 of 11), as an unrecognised item',
		async (typeVersion) => {
			const h = await harness({ typeVersion });
			const answer = await postSigned(h.url, envelope('consent.renewed'));
			expect(answer.status).toBe(200);
			const { index, json } = emitted(h, 0, 11);
			expect(index).toBe(10);
			expect(json).toMatchObject({ event: 'consent.renewed', reason: 'unknown-event' });
			// the raw body as an unrecognised item keeps it (version 1.1 minimises it to its length)
			expect(json).toHaveProperty(typeVersion === 1 ? 'rawBody' : 'rawBodyLength');
		},
	);

	test('the old events keep their outputs on a saved node', async () => {
		const h = await harness({ typeVersion: 1.1 });
		await postSigned(h.url, envelope('consent.data'));
		expect(emitted(h, 0, 11).index).toBe(4);
	});

	test('a saved node that selected only Unrecognised still runs it; one that did not filters it', async () => {
		const only = await harness({ typeVersion: 1.1, parameters: { events: ['unrecognised'] } });
		await postSigned(only.url, envelope('consent.renewed'));
		expect(emitted(only, 0, 1).json).toMatchObject({ reason: 'unknown-event' });
		const data = await harness({ typeVersion: 1.1, parameters: { events: ['consent.data'] } });
		expect((await postSigned(data.url, envelope('consent.renewed'))).json).toMatchObject({
			status: 'filtered',
		});
		expect(data.executions).toHaveLength(0);
	});

	test('a node of the new version gets it on its own output, before Unrecognised', async () => {
		const h = await harness({ typeVersion: 1.2 });
		await postSigned(h.url, envelope('consent.renewed'));
		const { index, json } = emitted(h, 0, 12);
		expect(index).toBe(10);
		expect(json).toMatchObject({ event: 'consent.renewed' });
		expect(json).not.toHaveProperty('reason');
	});
});
