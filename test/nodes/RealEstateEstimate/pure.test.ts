/**
 * The pure modules: the validators, the identity → path abstraction, the zod schema of the
 * estimate input, and the node description's agreement with that schema (the pool:
 * test/nodes/shared/pool.test.ts).
 */
import type { INodeProperties } from 'n8n-workflow';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import {
	checkKnr,
	describeObject,
	objectPath,
	parseIdentity,
} from '../../../nodes/RealEstateEstimate/identity';
import { buildEstimateInput, estimateInputSchema } from '../../../nodes/RealEstateEstimate/schema';
import { fieldLabel } from '../../../nodes/shared/validation';

// The attribute fields of ValuationInputDto that Overrides offers (real-estate-estimate-api.md)
const OVERRIDE_FIELDS = [
	'buildYear',
	'currentCommondebt',
	'estateType',
	'externalUsableArea',
	'floor',
	'glazedBalconyUsableArea',
	'grossArea',
	'internalUsableArea',
	'numberOfBedrooms',
	'numberOfFloorsInBuilding',
	'ownershipType',
	'primaryArea',
	'siteArea',
	'siteType',
	'usableArea',
];

describe('validators', () => {
	test.each([
		['0301', '0301'],
		[' 4601 ', '4601'],
		[301, '0301'],
		[5001, '5001'],
	])('knr %p → %p', (value, expected) => {
		expect(checkKnr(value)).toEqual({ value: expected });
	});

	test.each(['301', '03011', '0x01', '0000', '', 0, 10000, 30.1, null, true])(
		'knr %p is invalid',
		(value) => {
			expect(checkKnr(value).error).toMatch(/4 digits/);
		},
	);
});

describe('identity → path (one abstraction for both forms)', () => {
	test('cadastre keeps the leading zero of knr', () => {
		const { identity } = parseIdentity('cadastre', {
			knr: '0301',
			gnr: 208,
			bnr: 12,
			fnr: 0,
			snr: 0,
		});
		expect(objectPath(identity!)).toBe('/RealEstates/0301/208/12/0/0');
		expect(describeObject(identity!)).toBe('cadastre 0301-208/12/0/0');
	});

	test('share', () => {
		const { identity } = parseIdentity('share', {
			organizationNumber: '987654325',
			shareNumber: '12',
		});
		expect(objectPath(identity!)).toBe('/RealEstates/987654325/12');
		expect(describeObject(identity!)).toBe('housing cooperative 987654325 share 12');
	});

	test('housing cooperative', () => {
		const { identity } = parseIdentity('cooperative', { organizationNumber: '987654325' });
		expect(objectPath(identity!)).toBe('/RealEstates/987654325');
	});

	test('fnr and snr default to 0 when empty', () => {
		const { identity } = parseIdentity('cadastre', {
			knr: '4601',
			gnr: 1,
			bnr: 2,
			fnr: '',
			snr: undefined,
		});
		expect(objectPath(identity!)).toBe('/RealEstates/4601/1/2/0/0');
	});

	test('the first bad field is named', () => {
		expect(parseIdentity('cadastre', { knr: '0301', gnr: 1, bnr: 0 }).issue).toEqual({
			field: 'bnr',
			error: 'must be a whole number from 1 to 9999, got 0',
		});
		expect(
			parseIdentity('share', { organizationNumber: '987654325', shareNumber: 0 }).issue?.field,
		).toBe('shareNumber');
	});
});

describe('estimate input schema (zod)', () => {
	test('nothing set → no body', () => {
		expect(buildEstimateInput({})).toEqual({ body: undefined });
		expect(
			buildEstimateInput({
				overrides: { estateType: '' },
				valuation: { valuationValues: { date: '', price: null, saleType: '' } },
				includeComparables: false,
				dontStoreEstimate: false,
				estimateDate: '',
			}),
		).toEqual({ body: undefined });
	});

	test('storeEstimate is only ever sent as false', () => {
		expect(buildEstimateInput({ dontStoreEstimate: true }).body).toEqual({ storeEstimate: false });
		expect(buildEstimateInput({ dontStoreEstimate: false }).body).toBeUndefined();
	});

	test('the built body always satisfies the EstimateInputDto schema', () => {
		const { body } = buildEstimateInput({
			overrides: { usableArea: '80', floor: -1, siteType: ' Festet ' },
			valuation: {
				valuationValues: { date: '2020-01-01', price: '1000000', saleType: 'Fritt salg' },
			},
		});
		expect(body).toStrictEqual({
			usableArea: 80,
			floor: -1,
			siteType: 'Festet',
			valuation: { date: '2020-01-01', price: 1000000, saleType: 'Fritt salg' },
		});
		expect(estimateInputSchema.parse(body)).toStrictEqual(body);
	});

	test('the DTO schema rejects unknown fields and wrong types', () => {
		expect(estimateInputSchema.safeParse({ usableArea: 80.5 }).success).toBe(false);
		expect(estimateInputSchema.safeParse({ somethingElse: 1 }).success).toBe(false);
		expect(
			estimateInputSchema.safeParse({ valuation: { date: '2020-01-01', price: 1 } }).success,
		).toBe(false);
	});

	test('a rejected value is quoted like every validator quotes it: no name, no identity number', () => {
		const messages = (overrides: Record<string, unknown>) =>
			(buildEstimateInput({ overrides }).issues ?? []).map((issue) => issue.message);
		// personal data mapped into the wrong field (the masker's own synthetic number)
		expect(messages({ usableArea: 'Kari Nordmann' })[0]).toMatch(/, got a text of 13 characters$/);
		expect(messages({ buildYear: '05837049735' })[0]).toMatch(/, got "\*{11}"$/);
		expect(messages({ usableArea: 5837049735 })[0]).toMatch(/, got \*{10}$/);
		expect(messages({ usableArea: { first: 'Kari' } })[0]).toMatch(/, got an object$/);
		// what is no personal data is still shown
		expect(messages({ usableArea: 74.5 })[0]).toMatch(/, got 74\.5$/);
		expect(messages({ usableArea: '12,5' })[0]).toMatch(/, got "12,5"$/);
		const all = JSON.stringify(
			buildEstimateInput({ overrides: { usableArea: 'Kari Nordmann', buildYear: '05837049735' } }),
		);
		expect(all).not.toContain('Kari');
		expect(all).not.toContain('05837049735');
	});

	test('an unknown override key is reported, not sent', () => {
		const result = buildEstimateInput({ overrides: { bathrooms: 2 } });
		expect(result.issues).toEqual([
			{ field: 'overrides.bathrooms', message: 'is not a field of the estimate input' },
		]);
	});
});

describe('node description', () => {
	const { description } = new RealEstateEstimate();
	const property = (name: string, operation?: string): INodeProperties =>
		description.properties.find(
			(p) =>
				p.name === name &&
				(!operation ||
					(p.displayOptions?.show?.operation as string[] | undefined)?.includes(operation)),
		)!;

	test('identity, credential, tool use', () => {
		expect(description.name).toBe('realEstateEstimate');
		expect(description.usableAsTool).toBe(true);
		expect(description.credentials).toEqual([
			{ name: 'realEstateEstimateOAuth2Api', required: true },
		]);
		expect(description.icon).toEqual({
			light: 'file:../../icons/estimate.svg',
			dark: 'file:../../icons/estimate.dark.svg',
		});
		expect(description.subtitle).toContain('$parameter["operation"]');
	});

	test('the overrides collection offers exactly the 15 attribute fields of the schema, each labelled', () => {
		const names = (property('overrides').options as INodeProperties[]).map((o) => o.name);
		expect(names.sort()).toEqual([...OVERRIDE_FIELDS].sort());
		expect(names).toHaveLength(15);
		for (const option of property('overrides').options as INodeProperties[]) {
			expect(fieldLabel(description.properties, `overrides.${option.name}`)).toBe(
				`Overrides → ${option.displayName}`,
			);
		}
		// a fixedCollection's group is not a level of its own
		expect(fieldLabel(description.properties, 'valuation.date')).toBe('Valuation → Date');
		expect(fieldLabel(description.properties, 'knr')).toBe('Municipality Number (knr.)');
	});

	test('all 19 DTO fields are reachable from the parameters', () => {
		const reachable = new Set<string>(OVERRIDE_FIELDS);
		const get = description.properties.filter((p) =>
			(p.displayOptions?.show?.operation as string[] | undefined)?.includes('get'),
		);
		const names = get.map((p) => p.name);
		expect(names).toEqual(
			expect.arrayContaining([
				'estimateDate',
				'includeComparables',
				'dontStoreEstimate',
				'valuation',
			]),
		);
		for (const name of ['estimateDate', 'includeComparables', 'valuation']) reachable.add(name);
		reachable.add('storeEstimate'); // through "Don't Store Estimate"
		expect([...reachable].sort()).toEqual(Object.keys(estimateInputSchema.shape).sort());
		expect(reachable.size).toBe(19);
		const valuation = (property('valuation').options as Array<{ values: INodeProperties[] }>)[0]
			.values;
		expect(valuation.map((v) => [v.name, v.required ?? false])).toEqual([
			['date', true],
			['price', true],
			['saleType', true],
			['commondebt', false],
		]);
	});

	test('estateType, ownershipType, siteType and saleType are free text, not closed lists', () => {
		const overrides = property('overrides').options as INodeProperties[];
		for (const name of ['estateType', 'ownershipType', 'siteType']) {
			expect(overrides.find((o) => o.name === name)!.type).toBe('string');
		}
		const valuation = (property('valuation').options as Array<{ values: INodeProperties[] }>)[0]
			.values;
		expect(valuation.find((v) => v.name === 'saleType')!.type).toBe('string');
	});

	test('knr is a string parameter (keeps its leading zero); the binary property defaults to data', () => {
		expect(property('knr').type).toBe('string');
		expect(property('binaryPropertyName').default).toBe('data');
		expect((property('options').options as INodeProperties[])[0]).toMatchObject({
			name: 'concurrency',
			default: 20,
		});
	});
});
