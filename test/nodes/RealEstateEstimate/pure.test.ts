/**
 * The pure parts: the knr check and the node description's agreement with the API's
 * EstimateInputDto (the bodies sent: operations.test.ts; the pool: test/nodes/shared/runner.pool.test.ts).
 */
import type { INodeProperties } from 'n8n-workflow';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { checkKnr } from '../../../nodes/RealEstateEstimate/api';
import { fieldLabel } from '../../../nodes/shared/validation';

// The attribute fields of EstimateInputDto that Overrides offers (real-estate-estimate-api.md)
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
		const dto = [...OVERRIDE_FIELDS, 'estimateDate', 'includeComparables', 'storeEstimate'];
		expect([...reachable].sort()).toEqual([...dto, 'valuation'].sort());
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
