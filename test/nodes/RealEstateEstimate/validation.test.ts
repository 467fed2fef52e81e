/**
 * Every validation rule: the node fails with a NodeOperationError naming the item and the field,
 * and no request (neither token nor API) reaches the simulator.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { Params } from '../../support/execute-context';
import { useSimulator } from '../../support/simulator';
import { cadastre, ORG, requestLog, runNode, runNodeError, share } from './helpers';

const sim = useSimulator({ beforeEach: 'clearLog' });

async function expectRejected(
	parameters: Params | Params[],
	field: string | RegExp,
	itemIndex = 0,
) {
	const error = await runNodeError(sim, parameters);
	expect(error).toBeInstanceOf(NodeOperationError);
	if (typeof field === 'string') expect(error.message).toContain(field);
	else expect(error.message).toMatch(field);
	expect(error.message).toMatch(new RegExp(`^Item ${itemIndex + 1}: `));
	expect(error.context.itemIndex).toBe(itemIndex);
	// nothing at all reached the simulator: no token request, no API call
	expect(await requestLog(sim, '')).toEqual([]);
	return error;
}

const estimateGet = (extra: Params): Params => ({
	resource: 'estimate',
	operation: 'get',
	...cadastre('0301', 208, 12),
	...extra,
});

describe('cadastre', () => {
	test('the message names the field, the rule, the value and the item', async () => {
		const error = await expectRejected(estimateGet({ gnr: 0 }), 'Farm Number (gnr.)');
		expect(error.message).toBe(
			'Item 1: "Farm Number (gnr.)" must be a whole number from 1 to 99999, got 0',
		);
		expect(error.description).toContain('No request was sent');
	});

	test.each([
		['301', 'three digits'],
		['03011', 'five digits'],
		['03a1', 'a letter'],
		['0000', 'all zeros'],
		['', 'empty'],
		[' 30 1', 'inner space'],
	])('knr %p (%s) is rejected: exactly 4 digits', async (knr) => {
		const error = await expectRejected(estimateGet({ knr }), 'Municipality Number (knr.)');
		expect(error.message).toMatch(/4 digits/);
	});

	test.each([
		['gnr', 0, 'Farm Number (gnr.)'],
		['gnr', 100000, 'Farm Number (gnr.)'],
		['gnr', 12.5, 'Farm Number (gnr.)'],
		['gnr', 'twelve', 'Farm Number (gnr.)'],
		['gnr', '', '"Farm Number (gnr.)" is required'],
		['bnr', 0, 'Title Number (bnr.)'],
		['bnr', 10000, 'Title Number (bnr.)'],
		['fnr', -1, 'Leasehold Number (fnr.)'],
		['fnr', 10000, 'Leasehold Number (fnr.)'],
		['snr', -1, 'Section Number (snr.)'],
		['snr', 1000, 'Section Number (snr.)'],
		['snr', 0.5, 'Section Number (snr.)'],
	])('%s = %p is rejected', async (field, value, label) => {
		await expectRejected(estimateGet({ [field]: value }), label);
	});

	test('range ends are accepted: gnr 99999, bnr 9999, fnr 9999, snr 999; a knr number is padded', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'getMarketEstimate',
			identifyBy: 'cadastre',
			knr: 301,
			gnr: 99999,
			bnr: 9999,
			fnr: 9999,
			snr: 999,
		});
		const log = await requestLog(sim);
		expect(log.map((r) => r.path)).toEqual([
			`${sim.estimatePrefix}/RealEstates/0301/99999/9999/9999/999/MarketEstimate`,
		]);
	});

	test('empty fnr and snr mean none: sent as 0', async () => {
		await runNode(sim, { ...estimateGet({ fnr: '', snr: null }), operation: 'getBasis' });
		const log = await requestLog(sim);
		expect(log.map((r) => r.path)).toEqual([
			`${sim.estimatePrefix}/RealEstates/0301/208/12/0/0/EvEstimateBasis`,
		]);
	});
});

describe('share and housing cooperative', () => {
	test.each([
		['987654321', 'check digit'],
		['98765432', '9 digits'],
		['9876543250', '9 digits'],
		['', 'is empty'],
	])('organization number %p is rejected (%s)', async (organizationNumber, rule) => {
		const error = await expectRejected(
			{ resource: 'estimate', operation: 'getBasis', ...share(organizationNumber, 1) },
			'Organization Number',
		);
		expect(error.message).toContain(rule);
	});

	test('the housing cooperative checks the organization number too', async () => {
		await expectRejected(
			{ resource: 'estimate', operation: 'getHousingCooperative', organizationNumber: '923609017' },
			'"Organization Number" has a wrong check digit',
		);
	});

	test.each([0, -3, 2.5, 'abc'])(
		'share number %p is rejected: positive whole number',
		async (shareNumber) => {
			await expectRejected(
				{ resource: 'document', operation: 'getMany', ...share(ORG.a, shareNumber as number) },
				'Share Number',
			);
		},
	);
});

describe('document', () => {
	test.each([0, -1, 1.5, 2147483648, ''])('document ID %p is rejected', async (documentId) => {
		await expectRejected(
			{ resource: 'document', operation: 'download', documentId, binaryPropertyName: 'data' },
			'Document ID',
		);
	});

	test('an empty binary property name is rejected', async () => {
		await expectRejected(
			{ resource: 'document', operation: 'download', documentId: 900001, binaryPropertyName: ' ' },
			'Put Output File in Field',
		);
	});
});

describe('estimate input', () => {
	test.each([
		['buildYear', 999, '"Overrides → Build Year"'],
		['buildYear', 1937.5, '"Overrides → Build Year"'],
		['usableArea', 82.5, '"Overrides → Usable Area (BRA)" must be a whole number'],
		['usableArea', -1, '"Overrides → Usable Area (BRA)"'],
		['numberOfBedrooms', 2.5, '"Overrides → Number of Bedrooms"'],
		['numberOfBedrooms', -1, '"Overrides → Number of Bedrooms"'],
		['numberOfFloorsInBuilding', 3.2, '"Overrides → Number of Floors in Building"'],
		['floor', 1.5, '"Overrides → Floor" must be a whole number'],
		['floor', 2147483648, '"Overrides → Floor"'],
		['primaryArea', -0.1, '"Overrides → Primary Area (P-Rom)" must be a number of 0 or more'],
		['internalUsableArea', -1, '"Overrides → Internal Usable Area (BRA-I)"'],
		['externalUsableArea', -1, '"Overrides → External Usable Area (BRA-E)"'],
		['glazedBalconyUsableArea', -1, '"Overrides → Glazed Balcony Usable Area (BRA-B)"'],
		['grossArea', -1, '"Overrides → Gross Area (BTA)"'],
		['siteArea', 'large', '"Overrides → Site Area"'],
		['currentCommondebt', -5, '"Overrides → Current Common Debt"'],
		['estateType', 5, '"Overrides → Estate Type" must be text'],
	])('override %s = %p is rejected', async (field, value, message) => {
		await expectRejected(estimateGet({ overrides: { [field]: value } }), message);
	});

	test('the rejected value is quoted in the message', async () => {
		const error = await expectRejected(
			estimateGet({ overrides: { usableArea: 82.5 } }),
			'got 82.5',
		);
		expect(error.message).toMatch(/got 82\.5$/);
	});

	test.each([
		['31.01.2025', 'not ISO 8601'],
		['2025-13-01', 'month 13'],
		['2023-02-29', 'no 29 February in 2023'],
		['2025-01-31T25:00:00', 'hour 25'],
		['2025-01-31 12:00', 'space instead of T'],
		['yesterday', 'words'],
	])('estimate date %p is rejected (%s)', async (estimateDate) => {
		await expectRejected(estimateGet({ estimateDate }), '"Estimate Date" must be an ISO 8601 date');
	});

	test.each([
		[{ date: '2021-06-15', price: 100, saleType: '' }, '"Valuation → Sale Type" is required'],
		[{ date: '2021-06-15', saleType: 'Fritt salg' }, '"Valuation → Price" is required'],
		[{ price: 100, saleType: 'Fritt salg' }, '"Valuation → Date" is required'],
		[{ commondebt: 100 }, '"Valuation → Date" is required'],
		[
			{ date: '2021-06-15', price: -1, saleType: 'Fritt salg' },
			'"Valuation → Price" must be a number of 0 or more',
		],
		[
			{ date: '15/06/2021', price: 1, saleType: 'Fritt salg' },
			'"Valuation → Date" must be an ISO 8601',
		],
		[
			{ date: '2021-06-15', price: 1, saleType: 'Fritt salg', commondebt: -1 },
			'"Valuation → Common Debt"',
		],
	])('valuation %p is rejected', async (valuationValues, message) => {
		await expectRejected(estimateGet({ valuation: { valuationValues } }), message);
	});

	test('several bad fields: the first (in DTO order) is named', async () => {
		const error = await expectRejected(
			estimateGet({ overrides: { usableArea: 1.5, grossArea: -2 } }),
			'"Overrides → Gross Area (BTA)" must be a number of 0 or more, got -2',
		);
		expect(error.description).toBe('No request was sent for this item.');
	});

	test('a rejected value is quoted like every validator quotes it: no name, no identity number', async () => {
		const message = async (overrides: Params) =>
			(await expectRejected(estimateGet({ overrides }), 'Overrides')).message;
		// personal data mapped into the wrong field (the masker's own synthetic number)
		expect(await message({ usableArea: 'Kari Nordmann' })).toMatch(
			/, got a text of 13 characters$/,
		);
		expect(await message({ buildYear: '05837049735' })).toMatch(/, got "\*{11}"$/);
		expect(await message({ usableArea: 5837049735 })).toMatch(/, got \*{10}$/);
		expect(await message({ usableArea: { first: 'Kari' } })).toMatch(/, got an object$/);
		// what is no personal data is still shown
		expect(await message({ usableArea: '12,5' })).toMatch(/, got "12,5"$/);
	});

	test('an override key the node does not offer is not sent', async () => {
		await runNode(sim, estimateGet({ overrides: { bathrooms: 2, usableArea: 70 } }));
		const log = await requestLog(sim);
		expect(log.map((r) => r.body)).toEqual([{ usableArea: 70 }]);
	});

	test('a flag that is not a boolean is rejected', async () => {
		await expectRejected(
			estimateGet({ includeComparables: 'yes' }),
			'"Include Comparables" must be true or false',
		);
	});

	test('dates from expressions (Date, Luxon-like objects) are accepted and sent as ISO strings', async () => {
		await runNode(sim, [
			estimateGet({ estimateDate: new Date('2024-03-01T10:00:00Z') }),
			estimateGet({ estimateDate: { toISO: () => '2024-03-02T10:00:00.000+01:00' } }),
		]);
		const log = await requestLog(sim);
		expect(log.map((r) => (r.body as { estimateDate: string }).estimateDate)).toEqual([
			'2024-03-01T10:00:00.000Z',
			'2024-03-02T10:00:00.000+01:00',
		]);
	});
});

describe('validation before any request', () => {
	test('an invalid item anywhere stops the run before the first request, naming that item', async () => {
		const error = await expectRejected(
			[
				estimateGet({}),
				{ resource: 'estimate', operation: 'get', ...share(ORG.a, 1) },
				estimateGet({ knr: '31' }),
				estimateGet({}),
			],
			'Municipality Number (knr.)',
			2,
		);
		expect(error.message).toMatch(/^Item 3: /);
	});
});
