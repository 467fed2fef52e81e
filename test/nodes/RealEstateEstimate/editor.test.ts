/**
 * The node's description as a builder reads it in the editor (issue 13), checked against n8n's
 * UX guidelines for nodes and against n8n-workflow's own required-field logic:
 * - for every operation (and identification form), the required parameters come first, then the
 *   operation's settings, optional collections last (which parameters are shown is computed here
 *   from displayOptions, independently of n8n);
 * - display names as the domain writes them (knr, gnr, … in lower case) and error messages that
 *   quote them;
 * - required fields start empty, so that n8n marks them missing (NodeHelpers.getParameterIssues);
 * - Document → Get Many: Return All / Limit; Estimate → Get / Get Basis: Simplify;
 * - copy: placeholders start with "e.g.", Title Case labels, "Whether …" for booleans, actions
 *   in sentence case without articles.
 */
import { NodeHelpers } from 'n8n-workflow';
import type { IExecuteFunctions, INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { readObject } from '../../../nodes/RealEstateEstimate/api';
import { Fields } from '../../../nodes/shared/validation';
import {
	SIMPLIFIED_BASIS_FIELDS,
	SIMPLIFIED_ESTIMATE_FIELDS,
	addressLine,
} from '../../../nodes/RealEstateEstimate/simplify';
import { useSimulator } from '../../support/simulator';
import { cadastre, directCall, ORG, runNode, runNodeError, share } from './helpers';

const { description } = new RealEstateEstimate();
const properties = description.properties;

// ---- which parameters the editor shows, computed from displayOptions ------------------------

type Show = Record<string, unknown[]>;

/** Whether `property` is shown for `values` (only the `show` form with value lists is used here). */
function isShown(property: INodeProperties, values: INodeParameters): boolean {
	const options = property.displayOptions;
	if (!options) return true;
	expect(Object.keys(options)).toEqual(['show']); // anything else would need its own reading
	for (const [name, allowed] of Object.entries(options.show as Show)) {
		expect(Array.isArray(allowed)).toBe(true);
		for (const entry of allowed) expect(['string', 'boolean', 'number']).toContain(typeof entry);
		if (!allowed.includes(values[name] as never)) return false;
	}
	return true;
}

/** The parameters other parameters' visibility depends on (resource, operation, Identify By, …). */
const selectors = new Set(
	properties.flatMap((property) => Object.keys(property.displayOptions?.show ?? {})),
);

function valuesOf(property: INodeProperties): Array<string | number | boolean> {
	if (property.type === 'boolean') return [true, false];
	return (property.options ?? []).map((option) => (option as { value: string }).value);
}

/** Every combination of selector values the editor can show, with the defaults of the others. */
function combinations(): INodeParameters[] {
	let result: INodeParameters[] = [{}];
	// in description order: a selector's own visibility depends only on earlier ones
	for (const property of properties) {
		if (!selectors.has(property.name)) continue;
		const next: INodeParameters[] = [];
		for (const values of result) {
			if (!isShown(property, values)) {
				next.push(values);
				continue;
			}
			for (const value of valuesOf(property)) next.push({ ...values, [property.name]: value });
		}
		result = next;
	}
	return result;
}

function shownFor(values: INodeParameters): INodeProperties[] {
	return properties.filter((property) => isShown(property, values));
}

const COLLECTIONS = new Set(['collection', 'fixedCollection']);
const label = (values: INodeParameters) =>
	[values.resource, values.operation, values.identifyBy].filter(Boolean).join(' / ');

describe('the editor order of every operation', () => {
	const all = combinations();

	test('the combinations cover every operation of both resources and both identification forms', () => {
		const operations = new Set(all.map((values) => `${values.resource}.${values.operation}`));
		expect([...operations].sort()).toEqual([
			'document.download',
			'document.getMany',
			'estimate.get',
			'estimate.getBasis',
			'estimate.getHousingCooperative',
			'estimate.getMarketEstimate',
		]);
		expect(all.filter((values) => values.operation === 'get').map((v) => v.identifyBy)).toEqual(
			expect.arrayContaining(['cadastre', 'share']),
		);
	});

	test.each(all.map((values) => [label(values), values]))(
		'%s: required parameters first, then settings, optional collections last',
		(_label, values) => {
			const shown = shownFor(values as INodeParameters).filter(
				(property) => !['resource', 'operation'].includes(property.name),
			);
			const kind = (property: INodeProperties) =>
				property.required === true
					? 'required'
					: selectors.has(property.name) && property.type === 'options'
						? 'selector' // Identify By: chooses which required fields follow
						: COLLECTIONS.has(property.type)
							? 'collection'
							: 'setting';
			const order = shown.map((property) => `${property.name}:${kind(property)}`);
			const rank = { selector: 0, required: 1, setting: 2, collection: 3 };
			const ranks = shown.map((property) => rank[kind(property)]);
			// each kind after the ones before it: the ranks never go down
			expect({ order, sorted: ranks.every((r, i) => i === 0 || ranks[i - 1] <= r) }).toEqual({
				order,
				sorted: true,
			});
			// the object comes first wherever it is asked for
			if (shown.some((property) => property.name === 'identifyBy'))
				expect(shown[0].name).toBe('identifyBy');
			// the generic Options collection is the very last
			expect(shown[shown.length - 1].name).toBe('options');
		},
	);

	test('Estimate → Get by cadastre reads: the object, the settings, then Overrides, Valuation, Options', () => {
		const names = shownFor({ resource: 'estimate', operation: 'get', identifyBy: 'cadastre' })
			.map((property) => property.name)
			.filter((name) => !['resource', 'operation'].includes(name));
		expect(names).toEqual([
			'identifyBy',
			'knr',
			'gnr',
			'bnr',
			'fnr',
			'snr',
			'includeComparables',
			'estimateDate',
			'dontStoreEstimate',
			'simplify',
			'overrides',
			'valuation',
			'options',
		]);
	});
});

// ---- display names ------------------------------------------------------------------------

describe('display names as the domain writes them', () => {
	const byName = (name: string) => properties.find((property) => property.name === name)!;

	test.each([
		['knr', 'Municipality Number (knr.)'],
		['gnr', 'Farm Number (gnr.)'],
		['bnr', 'Title Number (bnr.)'],
		['fnr', 'Leasehold Number (fnr.)'],
		['snr', 'Section Number (snr.)'],
		['organizationNumber', 'Organization Number'],
		['shareNumber', 'Share Number'],
	])('%s is labelled "%s"', (name, displayName) => {
		expect(byName(name).displayName).toBe(displayName);
	});

	const sim = useSimulator({ beforeEach: 'clearLog' });

	test('a validation message quotes the label as it reads in the editor', async () => {
		const error = await runNodeError(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			bnr: '12.5',
		});
		expect(error.message).toBe(
			'Item 1: "Title Number (bnr.)" must be a whole number from 1 to 9999, got "12.5"',
		);
	});

	test('an empty required field names its label and says it is required', async () => {
		const error = await runNodeError(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			gnr: '',
		});
		expect(error.message).toBe(
			'Item 1: "Farm Number (gnr.)" is required (a whole number from 1 to 99999)',
		);
	});
});

// ---- required fields start empty: n8n marks them ---------------------------------------------

function nodeWith(parameters: INodeParameters): INode {
	return {
		id: 'editor-test',
		name: 'Real Estate Estimate',
		type: 'n8n-nodes-sbl.realEstateEstimate',
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
}

/** A new node as the editor creates it: n8n's defaults for what is shown, plus `chosen`. */
function newNode(chosen: INodeParameters): INodeParameters {
	const node = nodeWith(chosen);
	const defaults =
		NodeHelpers.getNodeParameters(properties, chosen, true, false, node, description) ?? {};
	return { ...defaults, ...chosen };
}

/** The parameters n8n's getParameterIssues reports as missing for these values. */
function missing(values: INodeParameters, props: INodeProperties[] = properties): string[] {
	const node = nodeWith(values);
	const names: string[] = [];
	for (const property of props) {
		const issues = NodeHelpers.getParameterIssues(property, values, '', node, description);
		names.push(...Object.keys(issues.parameters ?? {}));
	}
	return names.sort();
}

describe('required fields start empty, so n8n marks them as missing', () => {
	test.each([
		[{ resource: 'estimate', operation: 'get', identifyBy: 'cadastre' }, ['bnr', 'gnr', 'knr']],
		[
			{ resource: 'estimate', operation: 'get', identifyBy: 'share' },
			['organizationNumber', 'shareNumber'],
		],
		[
			{ resource: 'estimate', operation: 'getBasis', identifyBy: 'cadastre' },
			['bnr', 'gnr', 'knr'],
		],
		[
			{ resource: 'estimate', operation: 'getMarketEstimate', identifyBy: 'share' },
			['organizationNumber', 'shareNumber'],
		],
		[{ resource: 'estimate', operation: 'getHousingCooperative' }, ['organizationNumber']],
		[{ resource: 'document', operation: 'getMany', identifyBy: 'cadastre' }, ['bnr', 'gnr', 'knr']],
		[{ resource: 'document', operation: 'download' }, ['documentId']],
	])('%j: n8n reports %j', (chosen, expected) => {
		expect(missing(newNode(chosen))).toEqual(expected);
	});

	test('every required parameter starts empty (n8n reports nothing missing for a filled default)', () => {
		const required = properties.filter((property) => property.required === true);
		expect(required.length).toBeGreaterThan(0);
		for (const property of required) {
			// "Put Output File in Field" has n8n's usual default "data": a real value, not a placeholder
			if (property.name === 'binaryPropertyName') continue;
			expect({ name: property.name, default: property.default }).toEqual({
				name: property.name,
				default: '',
			});
		}
	});

	test('why: a required number parameter with default 0 is never reported missing by n8n', () => {
		const asBefore: INodeProperties = {
			displayName: 'Farm Number (gnr.)',
			name: 'gnr',
			type: 'number',
			required: true,
			default: 0,
		};
		const node = nodeWith({ gnr: 0 });
		expect(NodeHelpers.getParameterIssues(asBefore, { gnr: 0 }, '', node, description)).toEqual({});
		// and not even when it has no value at all
		expect(NodeHelpers.getParameterIssues(asBefore, {}, '', node, description)).toEqual({});
	});

	test.each([
		['typed', { knr: '0301', gnr: '207', bnr: '55' }],
		['numbers from an expression already resolved', { knr: '0301', gnr: 207, bnr: 55 }],
		['expressions', { knr: '={{ $json.knr }}', gnr: '={{ $json.gnr }}', bnr: '={{ 55 }}' }],
	])('filled in (%s): nothing is missing', (_how, values) => {
		const chosen = { resource: 'estimate', operation: 'get', identifyBy: 'cadastre' };
		expect(missing({ ...newNode(chosen), ...values })).toEqual([]);
	});

	/** The object the node reads from these parameters (its path), or the error it throws. */
	const readGnr = (gnr: unknown) => {
		const parameters: Record<string, unknown> = {
			identifyBy: 'cadastre',
			knr: '0301',
			gnr,
			bnr: '55',
		};
		const ctx = {
			getNodeParameter: (name: string, _item: number, fallback: unknown) =>
				parameters[name] ?? fallback,
		} as unknown as IExecuteFunctions;
		return readObject(ctx, new Fields({ name: 'Real Estate Estimate' } as INode, properties), 0);
	};

	test.each([
		[207, 207],
		['207', 207],
		[' 207 ', 207],
		['207.0', 207],
		['+207', 207],
	])(
		'gnr %p (a number or text, as typed or given by an expression) is read as %p',
		(gnr, value) => {
			expect(readGnr(gnr).path).toBe(`/RealEstates/0301/${value}/55/0/0`);
		},
	);

	test.each(['207.5', '2O7', '0', '-3', '1e9', 'two hundred'])('gnr %p is refused', (gnr) => {
		expect(() => readGnr(gnr)).toThrow(/^Item 1: "Farm Number \(gnr\.\)" /);
	});
});

// ---- Document → Get Many: Return All / Limit ------------------------------------------------

describe('Document → Get Many: Return All / Limit', () => {
	const returnAll = properties.find((property) => property.name === 'returnAll')!;
	const limit = properties.find((property) => property.name === 'limit')!;

	test("as in n8n's own nodes: Return All off, Limit 50 (at least 1) shown only while Return All is off", () => {
		expect(returnAll).toMatchObject({ displayName: 'Return All', type: 'boolean', default: false });
		expect(limit).toMatchObject({ displayName: 'Limit', type: 'number', default: 50 });
		expect(limit.typeOptions?.minValue).toBe(1);
		const getMany = { resource: 'document', operation: 'getMany', identifyBy: 'cadastre' };
		expect(isShown(returnAll, { ...getMany, returnAll: false })).toBe(true);
		expect(isShown(limit, { ...getMany, returnAll: false })).toBe(true);
		expect(isShown(limit, { ...getMany, returnAll: true })).toBe(false);
		for (const operation of ['download']) {
			expect(isShown(returnAll, { resource: 'document', operation })).toBe(false);
		}
		for (const operation of ['get', 'getBasis', 'getMarketEstimate', 'getHousingCooperative']) {
			expect(isShown(returnAll, { resource: 'estimate', operation, identifyBy: 'cadastre' })).toBe(
				false,
			);
		}
	});

	const sim = useSimulator({ beforeEach: 'clearLog' });
	const object = cadastre('4601', 166, 1021, 3, 14);
	const objectPath = '/RealEstates/4601/166/1021/3/14';
	const getMany = { resource: 'document', operation: 'getMany', ...object };

	test('the API has no paging: Limit keeps the first documents of the list it sends', async () => {
		const direct = await directCall(sim, 'GET', `${objectPath}/EstimateDocuments`);
		const list = direct.json.data as unknown[];
		expect(list.length).toBeGreaterThanOrEqual(2);

		const one = (await runNode(sim, { ...getMany, returnAll: false, limit: 1 })).output;
		expect(one.map((item) => item.json)).toEqual(list.slice(0, 1));

		const all = (await runNode(sim, { ...getMany, returnAll: true, limit: 1 })).output;
		expect(all.map((item) => item.json)).toEqual(list);

		const many = (await runNode(sim, { ...getMany, returnAll: false, limit: 50 })).output;
		expect(many.map((item) => item.json)).toEqual(list.slice(0, 50));
	});

	test('the limit applies per input item, each output paired with its input', async () => {
		const { output } = await runNode(sim, [
			{ ...getMany, returnAll: false, limit: 1 },
			{ ...getMany, ...share(ORG.a, 12), returnAll: false, limit: 2 },
		]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 1 }]);
	});

	test.each([0, -1, 1.5, 'many'])('Limit %p is refused before any request', async (value) => {
		const error = await runNodeError(sim, { ...getMany, returnAll: false, limit: value });
		expect(error.message).toMatch(/^Item 1: "Limit" must be a whole number from 1 to /);
	});
});

// ---- Simplify ---------------------------------------------------------------------------------

describe('Simplify (responses of more than 10 fields)', () => {
	// one definition per operation that offers it (each placed in its operation's order)
	const definitions = properties.filter((property) => property.name === 'simplify');
	const simplifyShown = (values: INodeParameters) =>
		definitions.filter((definition) => isShown(definition, values)).length;
	const sim = useSimulator({ beforeEach: 'clearLog' });

	test("n8n's wording, on by default, shown for Get and Get Basis only, once", () => {
		expect(definitions.length).toBeGreaterThan(0);
		for (const definition of definitions) {
			expect(definition).toMatchObject({
				displayName: 'Simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return a simplified version of the response instead of the raw data',
			});
		}
		const all = combinations();
		for (const values of all) expect(simplifyShown(values)).toBeLessThanOrEqual(1);
		const shownFor = all
			.filter((values) => simplifyShown(values) === 1)
			.map((values) => `${values.resource}.${values.operation}`);
		expect([...new Set(shownFor)].sort()).toEqual(['estimate.get', 'estimate.getBasis']);
	});

	test.each([
		['get', { includeComparables: true }],
		['getBasis', {}],
		['getMarketEstimate', {}],
		['getHousingCooperative', {}],
	])(
		'%s: Simplify is offered exactly when the raw answer has more than 10 fields',
		async (operation, extra) => {
			const identity =
				operation === 'getHousingCooperative'
					? { organizationNumber: ORG.a }
					: cadastre('0301', 208, 12);
			const { output } = await runNode(sim, {
				resource: 'estimate',
				operation,
				...identity,
				...extra,
				simplify: false,
			});
			const fields = Object.keys(output[0].json).length;
			const offered =
				simplifyShown({ resource: 'estimate', operation, identifyBy: 'cadastre' }) === 1;
			expect({ fields: fields > 10, offered }).toEqual({ fields: offered, offered });
		},
	);

	test('Get: at most 10 documented fields, the values the API sent, comparables flattened', async () => {
		const parameters = {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			includeComparables: true,
			estimateDate: '2025-01-31',
			dontStoreEstimate: true,
		};
		const simple = (await runNode(sim, parameters)).output[0].json;
		const raw = (await runNode(sim, { ...parameters, simplify: false })).output[0].json;
		const keys = Object.keys(simple);
		expect(keys.length).toBeLessThanOrEqual(10);
		// in the documented order
		expect(keys).toEqual(SIMPLIFIED_ESTIMATE_FIELDS.filter((field) => keys.includes(field)));
		expect(simple.object).toBe('cadastre 0301-208/12/0/0');
		expect(simple.estimateDate).toBe('2025-01-31');
		for (const field of [
			'approvedTotalMarketValue',
			'approvedNetMarketValue',
			'estimateUncertaintyLevel',
			'estimateTotalMarketValue',
		]) {
			expect(typeof raw[field]).toBe('number');
			expect(simple[field]).toBe(raw[field]);
		}
		interface RawComparable {
			address: { streetName: string; postOffice: { name: string } };
			valuation: { date: string; totalValue: number };
			primaryArea: number;
			squaremeterPrice: number;
		}
		const comparables = raw.comparables as RawComparable[];
		expect((simple.comparables as unknown[]).length).toBe(comparables.length);
		const [first] = simple.comparables as Array<Record<string, unknown>>;
		const source = comparables[0];
		expect(first).toMatchObject({
			saleDate: source.valuation.date,
			totalValue: source.valuation.totalValue,
			primaryArea: source.primaryArea,
			squaremeterPrice: source.squaremeterPrice,
		});
		expect(first.address).toContain(String(source.address.streetName));
		expect(first.address).toContain(String(source.address.postOffice.name));
		for (const value of Object.values(first)) expect(typeof value).not.toBe('object'); // flat
	});

	test("Get: the stored document's ID stays (the estimate-collateral example downloads it)", async () => {
		const { output } = await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...share(ORG.b, 7),
		});
		expect(typeof output[0].json.storedEstimateDocumentationId).toBe('number');
		expect(output[0].json.object).toBe(`housing cooperative ${ORG.b} share 7`);
		expect(output[0].json).not.toHaveProperty('marketScore');
	});

	test('Get Basis: at most 10 documented fields, the last valuation flattened', async () => {
		const base = { resource: 'estimate', operation: 'getBasis', ...cadastre('0301', 208, 12) };
		const simple = (await runNode(sim, base)).output[0].json;
		const raw = (await runNode(sim, { ...base, simplify: false })).output[0].json as {
			usableArea: number;
			buildYear: number;
			valuation: { date: string; totalValue: number };
		};
		const keys = Object.keys(simple);
		expect(keys.length).toBeLessThanOrEqual(10);
		expect(keys).toEqual(SIMPLIFIED_BASIS_FIELDS.filter((field) => keys.includes(field)));
		expect(simple).toMatchObject({
			object: 'cadastre 0301-208/12/0/0',
			usableArea: raw.usableArea,
			buildYear: raw.buildYear,
			valuationDate: raw.valuation.date,
			valuationTotalValue: raw.valuation.totalValue,
		});
	});

	test.each([
		[
			{
				streetName: 'Storgata',
				streetNumber: 12,
				streetLetter: 'B',
				postOffice: { code: 155, name: 'Oslo' },
			},
			'Storgata 12B, 0155 Oslo',
		],
		[
			{
				streetName: 'Storgata',
				streetNumber: 12,
				streetLetter: null,
				postOffice: { code: 5003, name: 'Bergen' },
			},
			'Storgata 12, 5003 Bergen',
		],
		[{ streetName: null, municipality: 'Oslo' }, 'Oslo'],
		[{}, undefined],
		[null, undefined],
	])('address %j → %p', (address, line) => {
		expect(addressLine(address)).toBe(line);
	});
});

// ---- copy -------------------------------------------------------------------------------------

/** Every property with its nested options (collections, fixedCollection groups). */
function everyProperty(list: readonly unknown[] = properties): INodeProperties[] {
	const out: INodeProperties[] = [];
	for (const entry of list as Array<Record<string, unknown>>) {
		if ('type' in entry) out.push(entry as unknown as INodeProperties);
		const children = (entry.values ?? entry.options) as unknown[] | undefined;
		if (
			Array.isArray(children) &&
			children.some((c) => c && typeof c === 'object' && 'displayName' in (c as object))
		)
			out.push(...everyProperty(children));
	}
	return out;
}

describe("copy, as n8n's UX guidelines ask", () => {
	const all = everyProperty();

	test('placeholders of values start with "e.g." (collection buttons say "Add …")', () => {
		for (const property of all) {
			if (property.placeholder === undefined) continue;
			if (COLLECTIONS.has(property.type)) expect(property.placeholder).toMatch(/^Add [a-z]/);
			else expect(property.placeholder).toMatch(/^e\.g\. \S/);
		}
	});

	test('labels in Title Case; abbreviations in brackets as the domain writes them', () => {
		const small = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'for', 'to', 'and', 'or']);
		for (const property of all) {
			const words = property.displayName
				.replace(/\([^)]*\)/g, '')
				.trim()
				.split(/\s+/);
			words.forEach((word, index) => {
				if (index > 0 && small.has(word)) return;
				expect({ label: property.displayName, word: /^[A-Z"'0-9]/.test(word) }).toEqual({
					label: property.displayName,
					word: true,
				});
			});
		}
	});

	test('booleans are described with "Whether …"', () => {
		for (const property of all.filter((p) => p.type === 'boolean')) {
			expect(property.description).toMatch(/^Whether /);
		}
	});

	test('operations: Title Case names, actions in sentence case without articles', () => {
		for (const property of properties.filter((p) => p.name === 'operation')) {
			for (const option of property.options as Array<{ name: string; action: string }>) {
				expect(option.name).toMatch(/^([A-Z][a-z]*)( [A-Z][a-z]*)*$/);
				expect(option.action).toMatch(/^[A-Z][a-z]+( [a-z]+)*$/);
				expect(option.action.split(' ')).not.toEqual(expect.arrayContaining(['a', 'an', 'the']));
			}
		}
	});
});
