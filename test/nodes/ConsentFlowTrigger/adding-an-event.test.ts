/**
 * Issue 32: adding an event must not move a saved workflow's connections. n8n stores connections
 * by output index and leaves out parameters at their default, so an 11th event appended to the
 * table would take index 10, Unrecognised's, on every node that kept the default Events. The
 * table says which node version introduced each event; a node of an older version does not have
 * the new event at all (options, default, outputs, selection, routing).
 *
 * A FIXTURE table adds `consent.renewed` to the real one, since a version after today's newest. Workflows are saved with
 * today's node (as n8n's editor saves them: parameters at their default left out), loaded with the
 * fixture node, and their outputs computed by n8n-workflow itself (a Workflow over the node, its
 * defaults applied, the outputs expression evaluated) and by staticOutputNames (execute()).
 */
import fc from 'fast-check';
import { NodeHelpers } from 'n8n-workflow';
import { n8nComputedOutputs, oneNodeWorkflow } from '../../support/computed-outputs';
import type {
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { staticOutputNames } from '../../../nodes/ConsentFlowTrigger/output-layout';
import {
	EVENTS,
	EVENT_TABLE,
	eventCatalogue,
	type EventCatalogue,
	type TriggerEventEntry,
} from '../../../nodes/shared/webhook/events';

const TYPE = 'n8n-nodes-sbl.consentFlowTrigger';
const NAME = 'Consent Flow Trigger';
const today = new ConsentFlowTrigger();
const VERSIONS = today.description.version as number[];
const NEW_VERSION = Math.round((Math.max(...VERSIONS) + 0.1) * 10) / 10;

const NEW_EVENT: TriggerEventEntry = {
	value: 'consent.renewed',
	outputName: 'Renewed',
	displayName: 'Consent Renewed',
	description: 'An accepted consent was renewed',
	since: NEW_VERSION,
};
const FIXTURE_TABLE: readonly TriggerEventEntry[] = [...EVENT_TABLE, NEW_EVENT];
const fixture = eventCatalogue(FIXTURE_TABLE);

/** The trigger as it would be with this catalogue: the real description, Events and outputs from it. */
function triggerWith(catalogue: EventCatalogue, versions: number[]): INodeType {
	const real = today.description;
	const events = real.properties.find((property) => property.name === 'events')!;
	const properties = real.properties.filter((property) => property.name !== 'events');
	const at = real.properties.indexOf(events);
	properties.splice(at, 0, ...catalogue.eventsProperties(events.description!));
	const description: INodeTypeDescription = {
		...real,
		version: versions,
		defaultVersion: versions[versions.length - 1],
		outputs: catalogue.configuredOutputs,
		properties,
	};
	return { description };
}

const withNewEvent = triggerWith(fixture, [...VERSIONS, NEW_VERSION]);

/** The node's parameters once n8n applied this version's defaults (what execute() reads). */
function filled(nodeType: INodeType, typeVersion: number, parameters: INodeParameters) {
	const workflow = oneNodeWorkflow(nodeType, TYPE, structuredClone(parameters), NAME, typeVersion);
	return workflow.getNode(NAME)!.parameters;
}

/** The parameters n8n's editor saves: those at their default (for this version) left out. */
function saved(nodeType: INodeType, typeVersion: number, parameters: INodeParameters) {
	const { properties } = nodeType.description;
	const full = filled(nodeType, typeVersion, parameters);
	const node = { typeVersion };
	return NodeHelpers.getNodeParameters(properties, full, false, false, node, nodeType.description)!;
}

interface Loaded {
	parameters: INodeParameters;
	/** The output names n8n computes (as the editor draws them and connections index them). */
	outputs: string[];
}

/** A saved node loaded by n8n: defaults applied, outputs computed (also as execute() does). */
function load(
	nodeType: INodeType,
	catalogue: EventCatalogue,
	typeVersion: number,
	parameters: INodeParameters,
): Loaded {
	const computed = n8nComputedOutputs(nodeType, TYPE, parameters, typeVersion);
	const outputs = (computed as Array<{ displayName: string }>).map((output) => output.displayName);
	const full = filled(nodeType, typeVersion, parameters);
	expect(staticOutputNames(full, typeVersion, catalogue)).toEqual(outputs);
	expect(staticOutputNames(parameters, typeVersion, catalogue)).toEqual(outputs);
	return { parameters: full, outputs };
}

/** Where a delivery of `event` (null: not a known event) goes: an output index, or 'filtered'. */
function route(
	catalogue: EventCatalogue,
	typeVersion: number,
	loaded: Loaded,
	event: string | null,
) {
	const selection = catalogue.normaliseEventSelection(loaded.parameters.events, typeVersion);
	if (!selection.ok) throw new Error(selection.message);
	const option = catalogue.eventOption(event, typeVersion);
	if (!selection.values.has(option)) return 'filtered';
	if (loaded.parameters.outputMode === 'single') return 0;
	const index = loaded.outputs.indexOf(catalogue.outputNameOf(option));
	expect(index).not.toBe(-1);
	return index;
}

const DELIVERIES: Array<string | null> = [...FIXTURE_TABLE.map((entry) => entry.value), null];

/** Saved with today's node, loaded with and without the new event: outputs and routing compared. */
function beforeAndAfter(typeVersion: number, parameters: INodeParameters) {
	const stored = saved(today, typeVersion, parameters);
	const before = load(today, EVENTS, typeVersion, stored);
	const after = load(withNewEvent, fixture, typeVersion, stored);
	const routes = (catalogue: EventCatalogue, loaded: Loaded) =>
		DELIVERIES.map((event) => [event, route(catalogue, typeVersion, loaded, event)]);
	return {
		stored,
		before,
		after,
		routesBefore: routes(EVENTS, before),
		routesAfter: routes(fixture, after),
	};
}

/** The output names of today's node of this version with every event selected. */
const outputsOf = (typeVersion?: number) =>
	EVENTS.outputTable(typeVersion).map((output) => output.name);

/** The Events properties n8n shows (and takes the default from) for a node of this version. */
function shownEventsProperties(nodeType: INodeType, typeVersion: number): INodeProperties[] {
	return nodeType.description.properties.filter(
		(property) =>
			property.name === 'events' &&
			NodeHelpers.displayParameter({}, property, { typeVersion }, nodeType.description),
	);
}

describe('a saved workflow keeps its connections when an event is added (fixture table)', () => {
	test('versions 1 and 1.1 (tested below): the ten events, Unrecognised at index 10', () => {
		expect(VERSIONS).toEqual(expect.arrayContaining([1, 1.1]));
		for (const typeVersion of [1, 1.1]) {
			expect(outputsOf(typeVersion)).toHaveLength(11);
			expect(outputsOf(typeVersion)[10]).toBe('Unrecognised');
		}
	});

	describe.each(VERSIONS)('node version %s', (typeVersion) => {
		const every = EVENTS.allOptions(typeVersion);
		const unrecognisedAt = outputsOf(typeVersion).length - 1;

		test('Events left at default: not saved, and the same outputs in the same order', () => {
			const { stored, before, after, routesBefore, routesAfter } = beforeAndAfter(typeVersion, {});
			expect(stored.events).toBeUndefined();
			expect(before.outputs).toEqual(outputsOf(typeVersion));
			expect(after.outputs).toEqual(outputsOf(typeVersion));
			expect(after.parameters.events).toEqual(every);
			expect(routesAfter).toEqual(routesBefore);
		});

		test('the new event goes to Unrecognised, as it did before it was in the table', () => {
			const { routesBefore, routesAfter } = beforeAndAfter(typeVersion, {});
			const renewed = (routes: unknown[][]) =>
				routes.find(([event]) => event === NEW_EVENT.value)?.[1];
			expect(renewed(routesBefore)).toBe(unrecognisedAt);
			expect(renewed(routesAfter)).toBe(unrecognisedAt);
			expect(fixture.eventOption(NEW_EVENT.value, typeVersion)).toBe('unrecognised');
		});

		test.each([
			['Data and Unrecognised', ['consent.data', 'unrecognised'], ['Data', 'Unrecognised']],
			['Unrecognised only', ['unrecognised'], ['Unrecognised']],
			[
				'three, out of order',
				['unrecognised', 'income.dataFailed', 'consent.created'],
				['Created', 'No Income Data', 'Unrecognised'],
			],
			['a string', 'consent.data, Unrecognised', ['Data', 'Unrecognised']],
			['every option, explicitly', every, outputsOf(typeVersion)],
			['nothing selected (every output stays)', [], outputsOf(typeVersion)],
		])('explicit Events, %s: the same outputs before and after', (_label, events, outputs) => {
			const { before, after, routesBefore, routesAfter } = beforeAndAfter(typeVersion, { events });
			expect(before.outputs).toEqual(outputs);
			expect(after.outputs).toEqual(outputs);
			expect(routesAfter).toEqual(routesBefore);
		});

		test('One for All Events: the new event is Unrecognised, filtered unless that is selected', () => {
			for (const events of [undefined, ['consent.data'], ['consent.data', 'unrecognised']]) {
				const parameters: INodeParameters = { outputMode: 'single' };
				if (events !== undefined) parameters.events = events;
				const { after, routesBefore, routesAfter } = beforeAndAfter(typeVersion, parameters);
				expect(after.outputs).toEqual(['Event']);
				expect(routesAfter).toEqual(routesBefore);
			}
		});

		test('property: any saved selection and mode keeps its outputs and routing', () => {
			fc.assert(
				fc.property(
					fc.subarray(every),
					fc.constantFrom('perEvent', 'single', undefined),
					fc.boolean(),
					(selected, mode, asString) => {
						const parameters: INodeParameters = {
							events: asString ? selected.join(',') : selected,
						};
						if (mode !== undefined) parameters.outputMode = mode;
						const { before, after, routesBefore, routesAfter } = beforeAndAfter(
							typeVersion,
							parameters,
						);
						expect(after.outputs).toEqual(before.outputs);
						expect(routesAfter).toEqual(routesBefore);
					},
				),
				{ numRuns: 60 },
			);
		});

		test('the node does not offer the new event: options, default, selection', () => {
			const shown = shownEventsProperties(withNewEvent, typeVersion);
			expect(shown).toHaveLength(1);
			const values = (shown[0].options ?? []).map((option) => (option as { value: string }).value);
			expect(values).not.toContain(NEW_EVENT.value);
			expect(shown[0].default).toEqual(every);
			expect(fixture.normaliseEventSelection([NEW_EVENT.value], typeVersion).ok).toBe(false);
		});
	});

	test('a node of the new version gets the new output (before Unrecognised) and its deliveries', () => {
		const newest = outputsOf();
		const loaded = load(withNewEvent, fixture, NEW_VERSION, {});
		expect(loaded.outputs).toEqual([...newest.slice(0, -1), 'Renewed', 'Unrecognised']);
		expect(route(fixture, NEW_VERSION, loaded, NEW_EVENT.value)).toBe(newest.length - 1);
		expect(route(fixture, NEW_VERSION, loaded, null)).toBe(newest.length);
		expect(route(fixture, NEW_VERSION, loaded, 'consent.data')).toBe(4);
		const shown = shownEventsProperties(withNewEvent, NEW_VERSION);
		expect(shown).toHaveLength(1);
		expect(shown[0].default).toEqual([
			...EVENTS.allOptions().slice(0, -1),
			NEW_EVENT.value,
			'unrecognised',
		]);
		expect(fixture.normaliseEventSelection([NEW_EVENT.value], NEW_VERSION).ok).toBe(true);
		const selected = load(withNewEvent, fixture, NEW_VERSION, {
			events: [NEW_EVENT.value, 'unrecognised'],
		});
		expect(selected.outputs).toEqual(['Renewed', 'Unrecognised']);
		expect(route(fixture, NEW_VERSION, selected, NEW_EVENT.value)).toBe(0);
	});

	test('why the version: appended without one (since 1), the Unrecognised connection would move', () => {
		const unversioned = eventCatalogue([...EVENT_TABLE, { ...NEW_EVENT, since: 1 }]);
		const loaded = load(triggerWith(unversioned, VERSIONS), unversioned, 1, saved(today, 1, {}));
		expect(loaded.outputs[outputsOf(1).length - 1]).toBe('Renewed');
	});
});

describe('the real table and the node versions', () => {
	test('every event was introduced by a version the node has, at most its default version', () => {
		for (const entry of EVENT_TABLE as readonly TriggerEventEntry[]) {
			expect(VERSIONS).toContain(entry.since);
			expect(entry.since).toBeLessThanOrEqual(today.description.defaultVersion!);
		}
	});

	test('each node version (also of the fixture node) shows exactly one Events property', () => {
		for (const typeVersion of VERSIONS) {
			const shown = shownEventsProperties(today, typeVersion);
			expect(shown).toHaveLength(1);
			expect(shown[0].default).toEqual(EVENTS.allOptions(typeVersion));
		}
		for (const typeVersion of [...VERSIONS, NEW_VERSION]) {
			expect(shownEventsProperties(withNewEvent, typeVersion)).toHaveLength(1);
		}
	});

	test('eventOption: the event if the node version knows it, else unrecognised', () => {
		expect(EVENTS.eventOption('consent.data', 1)).toBe('consent.data');
		expect(EVENTS.eventOption('consent.data', 1.1)).toBe('consent.data');
		expect(EVENTS.eventOption(null, 1.1)).toBe('unrecognised');
		expect(EVENTS.eventOption('no.such', 1.1)).toBe('unrecognised');
		expect(fixture.eventOption(NEW_EVENT.value, NEW_VERSION)).toBe(NEW_EVENT.value);
	});
});
