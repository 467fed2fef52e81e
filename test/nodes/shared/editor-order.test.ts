/**
 * The editor as a builder reads it (issue 13), checked with n8n-workflow's own display and
 * required-field logic (NodeHelpers.getNodeParameters / displayParameter / getNodeParametersIssues),
 * not with our reading of displayOptions:
 * - for every resource and operation, every required parameter n8n shows comes before every
 *   optional collection it shows (n8n's own nodes: what to act on first, options last);
 * - required fields start empty, so n8n marks them as missing on a new node (n8n reports a
 *   missing value only for empty strings/options, never for a number parameter).
 */
import type { INode, INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';

const nodes: Array<[string, INodeTypeDescription]> = [
	['Consent Flow', new ConsentFlow().description],
	['Real Estate Estimate', new RealEstateEstimate().description],
	['Consent Flow Trigger', new ConsentFlowTrigger().description],
];

const COLLECTIONS = new Set(['collection', 'fixedCollection']);

function valuesOf(property: INodeProperties | undefined): string[] {
	return (property?.options ?? []).map((option) => String((option as { value: unknown }).value));
}

/** Every resource/operation pair (or one empty pair for a node without them). */
function combinations(description: INodeTypeDescription): INodeParameters[] {
	const resources = valuesOf(description.properties.find((p) => p.name === 'resource'));
	const result: INodeParameters[] = [];
	for (const resource of resources.length ? resources : [undefined]) {
		const operationProps = description.properties.filter(
			(p) =>
				p.name === 'operation' &&
				(resource === undefined ||
					(p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource)),
		);
		const operations = operationProps.flatMap(valuesOf);
		for (const operation of operations.length ? operations : [undefined]) {
			const values: INodeParameters = {};
			if (resource !== undefined) values.resource = resource;
			if (operation !== undefined) values.operation = operation;
			result.push(values);
		}
	}
	return result;
}

function node(description: INodeTypeDescription, parameters: INodeParameters): INode {
	return {
		id: 'n',
		name: description.defaults.name ?? description.displayName,
		type: description.name,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
}

/** What n8n shows for these values, in description order, with n8n's defaults filled in. */
function shown(description: INodeTypeDescription, chosen: INodeParameters): INodeProperties[] {
	const withDefaults =
		NodeHelpers.getNodeParameters(
			description.properties,
			chosen,
			true,
			false,
			node(description, chosen),
			description,
		) ?? {};
	const values = { ...withDefaults, ...chosen };
	return description.properties.filter((property) =>
		NodeHelpers.displayParameter(values, property, node(description, values), description),
	);
}

describe.each(nodes)('%s: the editor order', (_name, description) => {
	test.each(combinations(description).map((c) => [JSON.stringify(c), c]))(
		'%s: required parameters before optional collections',
		(_label, chosen) => {
			const visible = shown(description, chosen as INodeParameters);
			expect(visible.length).toBeGreaterThan(0);
			const firstCollection = visible.findIndex(
				(p) => COLLECTIONS.has(p.type) && p.required !== true,
			);
			const lastRequired = visible.map((p) => p.required === true).lastIndexOf(true);
			if (firstCollection !== -1 && lastRequired !== -1) {
				const names = visible.map((p) => `${p.displayName}${p.required ? '*' : ''}`).join(', ');
				expect({ order: names, requiredAfterCollection: lastRequired > firstCollection }).toEqual({
					order: names,
					requiredAfterCollection: false,
				});
			}
			// The generic "Options" collection, where it is shown, comes last.
			const options = visible.findIndex((p) => p.name === 'options');
			if (options !== -1) expect(options).toBe(visible.length - 1);
		},
	);
});

describe('Real Estate Estimate: required fields start empty, so n8n marks them', () => {
	const { description } = new RealEstateEstimate();
	test.each([
		['estimate', 'get', 'cadastre', ['knr', 'gnr', 'bnr']],
		['estimate', 'get', 'share', ['organizationNumber', 'shareNumber']],
		['estimate', 'getBasis', 'cadastre', ['knr', 'gnr', 'bnr']],
		['estimate', 'getMarketEstimate', 'cadastre', ['knr', 'gnr', 'bnr']],
	])(
		'%s %s by %s: %j reported missing on a new node',
		(resource, operation, identifyBy, expected) => {
			const chosen: INodeParameters = { resource, operation, identifyBy };
			const parameters = {
				...(NodeHelpers.getNodeParameters(
					description.properties,
					chosen,
					true,
					false,
					node(description, chosen),
					description,
				) ?? {}),
				...chosen,
			};
			const issues = NodeHelpers.getNodeParametersIssues(
				description.properties,
				node(description, parameters),
				description,
			);
			expect(Object.keys(issues?.parameters ?? {}).sort()).toEqual([...expected].sort());
		},
	);

	test('filled in (numbers typed or given by an expression as numbers or text), nothing is missing', () => {
		const chosen: INodeParameters = {
			resource: 'estimate',
			operation: 'get',
			identifyBy: 'cadastre',
		};
		for (const values of [
			{ knr: '0301', gnr: '207', bnr: '55' },
			{ knr: '0301', gnr: 207, bnr: 55 },
		]) {
			const parameters = {
				...(NodeHelpers.getNodeParameters(
					description.properties,
					chosen,
					true,
					false,
					node(description, chosen),
					description,
				) ?? {}),
				...chosen,
				...values,
			};
			const issues = NodeHelpers.getNodeParametersIssues(
				description.properties,
				node(description, parameters),
				description,
			);
			expect(issues).toBeNull();
		}
	});
});
