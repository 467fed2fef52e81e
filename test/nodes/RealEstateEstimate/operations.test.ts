/**
 * Every operation against the simulator over real HTTP, in both identifications: the path and
 * method that reached the service, the body sent, and the output (the unwrapped `data`).
 */
import { useSimulator } from '../../support/simulator';
import { cadastre, directCall, ORG, requestLog, runNode, share } from './helpers';

const sim = useSimulator({ beforeEach: 'clearLog' });
let prefix: string;
beforeAll(() => {
	prefix = sim.estimatePrefix;
});

const forms = [
	{
		name: 'cadastre',
		params: cadastre('0301', 208, 12, 0, 0),
		path: '/RealEstates/0301/208/12/0/0',
	},
	{
		name: 'cadastre with fnr and snr',
		params: cadastre('4601', 166, 1021, 3, 14),
		path: '/RealEstates/4601/166/1021/3/14',
	},
	{ name: 'share', params: share(ORG.a, 12), path: `/RealEstates/${ORG.a}/12` },
];

describe('estimate → get', () => {
	test.each(forms)(
		'$name: POST …/EvEstimate without a body when nothing is set',
		async ({ params, path }) => {
			const { output } = await runNode(sim, { resource: 'estimate', operation: 'get', ...params });
			const log = await requestLog(sim);
			expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${prefix}${path}/EvEstimate`]);
			expect(log[0].body).toBeNull();
			expect(log[0].headers['content-length'] ?? '0').toBe('0');
			expect(output).toHaveLength(1);
			expect(output[0].pairedItem).toEqual({ item: 0 });
			const json = output[0].json;
			expect(typeof json.approvedTotalMarketValue).toBe('number');
			expect(typeof json.estimateUncertaintyLevel).toBe('number');
			expect(json).not.toHaveProperty('data'); // unwrapped
			// the account stores estimates: a document id comes back when storing is not turned off
			expect(typeof json.storedEstimateDocumentationId).toBe('number');
		},
	);

	test('the output equals the data the API computes for the same body', async () => {
		const { output } = await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...share(ORG.b, 7),
			overrides: { usableArea: 71, floor: 3 },
			dontStoreEstimate: true,
			simplify: false,
		});
		const direct = await directCall(sim, 'POST', `/RealEstates/${ORG.b}/7/EvEstimate`, {
			usableArea: 71,
			floor: 3,
			storeEstimate: false,
		});
		expect(direct.status).toBe(200);
		expect(output[0].json).toEqual(direct.json.data);
		expect(output[0].json.storedEstimateDocumentationId).toBeNull();
		expect(typeof output[0].json.commondebtLastUpdated).toBe('number'); // share form: common debt known
	});

	test('all 19 EstimateInputDto fields are sent with their JSON types', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			overrides: {
				buildYear: 1937,
				currentCommondebt: 125000.5,
				estateType: 'Leilighet',
				externalUsableArea: 2.5,
				floor: 4,
				glazedBalconyUsableArea: 4.2,
				grossArea: 95.3,
				internalUsableArea: 78.9,
				numberOfBedrooms: 2,
				numberOfFloorsInBuilding: 6,
				ownershipType: 'Eierseksjon',
				primaryArea: 77.1,
				siteArea: 1250.75,
				siteType: 'Eiet',
				usableArea: 82,
			},
			valuation: {
				valuationValues: {
					date: '2021-06-15T00:00:00Z',
					price: 4150000,
					saleType: 'Fritt salg',
					commondebt: 0,
				},
			},
			includeComparables: true,
			estimateDate: '2025-01-31',
			dontStoreEstimate: true,
		});
		const [request] = await requestLog(sim);
		expect(request.contentType).toMatch(/^application\/json/);
		expect(request.body).toStrictEqual({
			buildYear: 1937,
			currentCommondebt: 125000.5,
			estateType: 'Leilighet',
			externalUsableArea: 2.5,
			floor: 4,
			glazedBalconyUsableArea: 4.2,
			grossArea: 95.3,
			internalUsableArea: 78.9,
			numberOfBedrooms: 2,
			numberOfFloorsInBuilding: 6,
			ownershipType: 'Eierseksjon',
			primaryArea: 77.1,
			siteArea: 1250.75,
			siteType: 'Eiet',
			usableArea: 82,
			valuation: {
				date: '2021-06-15T00:00:00Z',
				price: 4150000,
				saleType: 'Fritt salg',
				commondebt: 0,
			},
			includeComparables: true,
			estimateDate: '2025-01-31',
			storeEstimate: false,
		});
		expect(Object.keys(request.body as object)).toHaveLength(19);
	});

	test('numbers given as numeric strings (expressions) are sent as JSON numbers', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			overrides: { usableArea: '64', siteArea: '512.5', buildYear: '1999' },
		});
		const [request] = await requestLog(sim);
		expect(request.body).toStrictEqual({ usableArea: 64, siteArea: 512.5, buildYear: 1999 });
	});

	test('empty overrides, an untouched valuation and unticked flags are not sent', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			overrides: {
				estateType: '',
				siteType: '   ',
				usableArea: null,
				floor: undefined,
				primaryArea: 55,
			},
			valuation: { valuationValues: { date: '', price: null, saleType: '', commondebt: null } },
			includeComparables: false,
			estimateDate: '',
			dontStoreEstimate: false,
		});
		const [request] = await requestLog(sim);
		expect(request.body).toStrictEqual({ primaryArea: 55 });
	});

	test('a valuation without common debt sends the three required fields only', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...share(ORG.a, 3),
			valuation: {
				valuationValues: {
					date: '2019-03-01',
					price: 2900000,
					saleType: 'Fritt salg',
					commondebt: null,
				},
			},
		});
		const [request] = await requestLog(sim);
		expect(request.body).toStrictEqual({
			valuation: { date: '2019-03-01', price: 2900000, saleType: 'Fritt salg' },
		});
	});

	test('the service reacts to the overrides: comparables, estimate date, storing off', async () => {
		const base = {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			simplify: false,
		};
		const plain = (await runNode(sim, { ...base, dontStoreEstimate: true })).output[0].json;
		const withComparables = (await runNode(sim, { ...base, includeComparables: true })).output[0]
			.json;
		const backInTime = (
			await runNode(sim, { ...base, estimateDate: '2015-01-01T00:00:00Z', dontStoreEstimate: true })
		).output[0].json;
		expect(plain.comparables).toBeNull();
		expect(Array.isArray(withComparables.comparables)).toBe(true);
		expect((withComparables.comparables as unknown[]).length).toBeGreaterThan(0);
		expect(backInTime.estimateTotalMarketValue as number).toBeLessThan(
			plain.estimateTotalMarketValue as number,
		);
		expect(plain.storedEstimateDocumentationId).toBeNull();
		expect(typeof withComparables.storedEstimateDocumentationId).toBe('number');
	});
});

describe('estimate → getBasis / getMarketEstimate', () => {
	test.each(forms)(
		'$name: GET …/EvEstimateBasis returns the unwrapped basis',
		async ({ params, path }) => {
			const { output } = await runNode(sim, {
				resource: 'estimate',
				operation: 'getBasis',
				...params,
				simplify: false,
			});
			const log = await requestLog(sim);
			expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([
				`GET ${prefix}${path}/EvEstimateBasis`,
			]);
			const direct = await directCall(sim, 'GET', `${path}/EvEstimateBasis`);
			expect(output).toEqual([{ json: direct.json.data, pairedItem: { item: 0 } }]);
			expect(typeof output[0].json.usableArea).toBe('number');
			expect(typeof output[0].json.valuation).toBe('object');
		},
	);

	test.each(forms)(
		'$name: GET …/MarketEstimate returns estimate with low and high bound',
		async ({ params, path }) => {
			const { output } = await runNode(sim, {
				resource: 'estimate',
				operation: 'getMarketEstimate',
				...params,
			});
			const log = await requestLog(sim);
			expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([
				`GET ${prefix}${path}/MarketEstimate`,
			]);
			const { estimate, estimateLow, estimateHigh } = output[0].json as Record<string, number>;
			expect(estimateLow).toBeLessThan(estimate);
			expect(estimateHigh).toBeGreaterThan(estimate);
			const direct = await directCall(sim, 'GET', `${path}/MarketEstimate`);
			expect(output[0].json).toEqual(direct.json.data);
		},
	);

	test('an object the service knows nothing about (data: null) yields no item', async () => {
		const { output } = await runNode(sim, {
			resource: 'estimate',
			operation: 'getBasis',
			...cadastre('0301', 404, 1),
		});
		expect(output).toEqual([]);
		expect(await requestLog(sim)).toHaveLength(1);
	});
});

describe('estimate → getHousingCooperative', () => {
	test('GET /RealEstates/{organizationNumber}/EvEstimateHousingCooperative', async () => {
		const { output } = await runNode(sim, {
			resource: 'estimate',
			operation: 'getHousingCooperative',
			organizationNumber: ORG.c,
		});
		const log = await requestLog(sim);
		expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET ${prefix}/RealEstates/${ORG.c}/EvEstimateHousingCooperative`,
		]);
		const direct = await directCall(
			sim,
			'GET',
			`/RealEstates/${ORG.c}/EvEstimateHousingCooperative`,
		);
		expect(output).toEqual([{ json: direct.json.data, pairedItem: { item: 0 } }]);
		expect(typeof output[0].json.approvedTotalMarketValue).toBe('number');
		expect(output[0].json.estimateUncertaintyLevel).toEqual(expect.any(Number));
	});

	test('ignores identifyBy: the organization number alone addresses the cooperative', async () => {
		await runNode(sim, {
			resource: 'estimate',
			operation: 'getHousingCooperative',
			identifyBy: 'cadastre',
			knr: 'not used',
			organizationNumber: ORG.a,
		});
		const log = await requestLog(sim);
		expect(log.map((r) => r.path)).toEqual([
			`${prefix}/RealEstates/${ORG.a}/EvEstimateHousingCooperative`,
		]);
	});
});

describe('document → getMany', () => {
	test.each(forms)('$name: one output item per stored document', async ({ params, path }) => {
		const { output } = await runNode(sim, {
			resource: 'document',
			operation: 'getMany',
			...params,
		});
		const log = await requestLog(sim);
		expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET ${prefix}${path}/EstimateDocuments`,
		]);
		const direct = (await directCall(sim, 'GET', `${path}/EstimateDocuments`)).json
			.data as unknown[];
		expect(direct.length).toBeGreaterThanOrEqual(2);
		expect(output.map((item) => item.json)).toEqual(direct);
		expect(output.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(typeof output[0].json.estimateDocumentId).toBe('number');
	});

	test('an estimate stored by get shows up in the list', async () => {
		const stored = (
			await runNode(sim, { resource: 'estimate', operation: 'get', ...cadastre('5001', 40, 2) })
		).output[0].json.storedEstimateDocumentationId;
		const { output } = await runNode(sim, {
			resource: 'document',
			operation: 'getMany',
			...cadastre('5001', 40, 2),
		});
		expect(output.map((item) => item.json.estimateDocumentId)).toContain(stored);
	});

	test('several inputs: each document is paired with the input item it was listed for', async () => {
		const { output } = await runNode(sim, [
			{ resource: 'document', operation: 'getMany', ...cadastre('0301', 208, 12) },
			{ resource: 'document', operation: 'getMany', ...cadastre('0301', 404, 1) }, // null list
			{ resource: 'document', operation: 'getMany', ...share(ORG.b, 1) },
		]);
		const first = (await directCall(sim, 'GET', '/RealEstates/0301/208/12/0/0/EstimateDocuments'))
			.json.data as unknown[];
		const third = (await directCall(sim, 'GET', `/RealEstates/${ORG.b}/1/EstimateDocuments`)).json
			.data as unknown[];
		expect(output.map((item) => (item.pairedItem as { item: number }).item)).toEqual([
			...first.map(() => 0),
			...third.map(() => 2),
		]);
		expect(output.map((item) => item.json)).toEqual([...first, ...third]);
	});

	test('an empty or null list yields no item for that input', async () => {
		const { output } = await runNode(sim, {
			resource: 'document',
			operation: 'getMany',
			...share(ORG.a, 404),
		});
		expect(output).toEqual([]);
		const direct = await directCall(sim, 'GET', `/RealEstates/${ORG.a}/404/EstimateDocuments`);
		expect(direct.json.data).toBeNull();
	});
});

describe('base URL', () => {
	test('a trailing slash in API Base URL does not double the slash', async () => {
		const { estimateCredentials } = await import('./helpers');
		await runNode(
			sim,
			{ resource: 'estimate', operation: 'getMarketEstimate', ...cadastre('0301', 208, 12) },
			{
				credentials: estimateCredentials(sim, 'estimate', {
					apiBaseUrl: `${sim.estimateBaseUrl}/`,
				}),
			},
		);
		const log = await requestLog(sim);
		expect(log.map((r) => r.path)).toEqual([
			`${prefix}/RealEstates/0301/208/12/0/0/MarketEstimate`,
		]);
	});
});
