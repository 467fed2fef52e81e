'use strict';

// Real estate estimate API (under the estimate prefix). One router serves both object forms:
//   /RealEstates/{knr}/{gnr}/{bnr}/{fnr}/{snr}/{op}   cadastre form (5 numbers)
//   /RealEstates/{organizationNumber}/{shareNumber}/{op}   share form (2 numbers)
//   /RealEstates/{organizationNumber}/{op}   housing cooperative (1 number)
//   /EvEstimate/Documents/{id}   PDF
// All values are deterministic per object identity (seeded from a hash of it).

const {
	sendJson,
	mediaType,
	isJsonType,
	parseJson,
	isPlainObject,
	seededRandom,
	hashInt,
	round,
} = require('./util');
const { planPdf, writePdf } = require('./pdf');

const INT32_MAX = 2147483647;
const YEAR_MS = 365.25 * 86400000;
const DAY_MS = 86400000;
const YEARLY_INDEX = 0.045; // value change per year used for estimates back in time
const LARGE_DOC_FIRST = 900001;
const LARGE_DOC_LAST = 900100;
const STORED_DOC_FIRST_ID = 5000001;
const UNKNOWN_MARKER = 404; // gnr (cadastre form) or shareNumber (share form) that is not a known object

const MUNICIPALITIES = {
	301: {
		name: 'Oslo',
		lat: 59.9139,
		lon: 10.7522,
		sqm: 92000,
		posts: [
			[455, 'OSLO'],
			[355, 'OSLO'],
			[564, 'OSLO'],
			[658, 'OSLO'],
		],
		streets: [
			'Thereses gate',
			'Bogstadveien',
			'Kirkeveien',
			'Sofies gate',
			'Trondheimsveien',
			'Markveien',
		],
	},
	4601: {
		name: 'Bergen',
		lat: 60.3913,
		lon: 5.3221,
		sqm: 58000,
		posts: [
			[5003, 'BERGEN'],
			[5011, 'BERGEN'],
			[5055, 'BERGEN'],
		],
		streets: ['Kong Oscars gate', 'Nygårdsgaten', 'Kalfarveien', 'Møllendalsveien'],
	},
	5001: {
		name: 'Trondheim',
		lat: 63.4305,
		lon: 10.3951,
		sqm: 56000,
		posts: [
			[7010, 'TRONDHEIM'],
			[7030, 'TRONDHEIM'],
			[7045, 'TRONDHEIM'],
		],
		streets: ['Munkegata', 'Innherredsveien', 'Elgeseter gate', 'Byåsveien'],
	},
	1103: {
		name: 'Stavanger',
		lat: 58.97,
		lon: 5.7331,
		sqm: 50000,
		posts: [
			[4006, 'STAVANGER'],
			[4014, 'STAVANGER'],
			[4021, 'STAVANGER'],
		],
		streets: ['Pedersgata', 'Eiganesveien', 'Madlaveien'],
	},
	3201: {
		name: 'Bærum',
		lat: 59.894,
		lon: 10.5466,
		sqm: 70000,
		posts: [
			[1337, 'SANDVIKA'],
			[1350, 'LOMMEDALEN'],
			[1362, 'HOSLE'],
		],
		streets: ['Bærumsveien', 'Gamle Ringeriksvei', 'Rådmann Halmrasts vei'],
	},
	5501: {
		name: 'Tromsø',
		lat: 69.6496,
		lon: 18.956,
		sqm: 48000,
		posts: [
			[9008, 'TROMSØ'],
			[9010, 'TROMSØ'],
		],
		streets: ['Storgata', 'Grønnegata', 'Skippergata'],
	},
};
const KNOWN_KNR = Object.keys(MUNICIPALITIES).map(Number);

function municipality(knr) {
	const known = MUNICIPALITIES[knr];
	if (known) return { knr, ...known };
	const rng = seededRandom(`municipality:${knr}`);
	return {
		knr,
		name: `Kommune ${String(knr).padStart(4, '0')}`,
		lat: rng.float(58.2, 69.5, 4),
		lon: rng.float(5.2, 18.5, 4),
		sqm: 34000,
		posts: [[rng.int(1000, 9990), 'POSTSTED']],
		streets: ['Storgata', 'Kirkegata', 'Skolegata', 'Fjordveien'],
	};
}

/** Identity of the object addressed by the path numbers. */
function resolveObject(numbers) {
	if (numbers.length === 5) {
		const [knr, gnr, bnr, fnr, snr] = numbers;
		return {
			form: 'cadastre',
			key: `cadastre:${knr}-${gnr}-${bnr}-${fnr}-${snr}`,
			label: `cadastre ${String(knr).padStart(4, '0')}-${gnr}/${bnr}/${fnr}/${snr}`,
			known: gnr !== UNKNOWN_MARKER,
			muni: municipality(knr),
			section: snr > 0,
		};
	}
	const [organizationNumber, shareNumber] = numbers;
	return {
		form: 'share',
		key: `share:${organizationNumber}-${shareNumber}`,
		label: `housing cooperative ${organizationNumber} share ${shareNumber}`,
		known: shareNumber !== UNKNOWN_MARKER,
		muni: municipality(KNOWN_KNR[hashInt(`coop:${organizationNumber}`) % KNOWN_KNR.length]),
		organizationNumber,
		section: true,
	};
}

const isoDay = (ms) => new Date(ms).toISOString();

/** What the service holds for the object (EstimateBasisResponseDto). */
function basisFor(obj) {
	const rng = seededRandom(`basis:${obj.key}`);
	const share = obj.form === 'share';
	const estateType = obj.section
		? 'Leilighet'
		: rng.pick(['Enebolig', 'Rekkehus', 'Tomannsbolig', 'Enebolig']);
	const apartment = estateType === 'Leilighet';
	const usableArea = apartment ? rng.float(34, 135, 1) : rng.float(95, 265, 1);
	const buildYear = apartment ? rng.int(1890, 2021) : rng.int(1925, 2022);
	const currentCommondebt = share ? rng.int(40, 900) * 1000 + rng.int(0, 99) / 100 : 0;
	const basis = {
		buildYear,
		currentCommondebt,
		estateType,
		externalUsableArea: round(usableArea * 0.02, 1),
		floor: apartment ? rng.int(1, 7) : 1,
		glazedBalconyUsableArea: apartment ? rng.float(0, 7, 1) : 0,
		grossArea: round(usableArea * 1.16, 1),
		internalUsableArea: round(usableArea * 0.95, 1),
		ownershipType: share ? 'Andel' : apartment ? 'Eierseksjon' : 'Selveier',
		primaryArea: round(usableArea * 0.91, 1),
		siteArea: apartment ? (share ? 0 : rng.float(600, 3000, 1)) : rng.float(350, 1500, 1),
		siteType: rng() < 0.85 ? 'Eiet' : 'Festet',
		usableArea,
	};
	// Last registered sale, priced with the model at that date.
	const saleMs = Date.UTC(rng.int(2008, 2023), rng.int(0, 11), rng.int(1, 28));
	const saleTotal =
		Math.round((modelValue(obj, basis, basis, saleMs) * rng.float(0.93, 1.05, 3)) / 5000) * 5000;
	const saleDebt = share ? Math.round(currentCommondebt * 1.1) : 0;
	basis.valuation = {
		commonDebt: saleDebt,
		date: isoDay(saleMs),
		price: saleTotal - saleDebt,
		totalValue: saleTotal,
		type: 'Fritt salg',
	};
	return basis;
}

/** Model value (total, including common debt) of attributes at a date. */
function modelValue(obj, basis, attrs, atMs) {
	const rng = seededRandom(`price:${obj.key}`);
	const apartment = basis.estateType === 'Leilighet';
	const sqm = obj.muni.sqm * rng.float(0.85, 1.15, 3) * (apartment ? 1 : 0.82);
	const area = effectiveArea(basis, attrs);
	const age = Math.min(1.25, Math.max(0.8, 1 + (attrs.buildYear - 1980) * 0.003));
	const floor = apartment ? 1 + Math.min(Math.max(attrs.floor, 0), 10) * 0.012 : 1;
	const bedrooms =
		attrs.numberOfBedrooms != null
			? 1 + (attrs.numberOfBedrooms - defaultBedrooms(basis)) * 0.02
			: 1;
	const site = apartment
		? 1
		: 1 + Math.max(-0.05, Math.min(0.08, ((attrs.siteArea - basis.siteArea) / 800) * 0.05));
	const balconies = (attrs.glazedBalconyUsableArea * 0.35 + attrs.externalUsableArea * 0.2) * sqm;
	const yearsBack = Math.min(40, Math.max(0, (Date.now() - atMs) / YEAR_MS));
	return (
		(sqm * area * age * floor * bedrooms * site + balconies) * (1 + YEARLY_INDEX) ** -yearsBack
	);
}

function defaultBedrooms(basis) {
	return Math.max(1, Math.round(basis.usableArea / 30));
}

/** Area driving the value: BRA override, else P-rom or BRA-i overrides scaled to BRA, else the basis BRA. */
function effectiveArea(basis, attrs) {
	if (attrs.usableArea !== basis.usableArea) return attrs.usableArea;
	if (attrs.primaryArea !== basis.primaryArea)
		return attrs.primaryArea * (basis.usableArea / basis.primaryArea);
	if (attrs.internalUsableArea !== basis.internalUsableArea) {
		return attrs.internalUsableArea * (basis.usableArea / basis.internalUsableArea);
	}
	return basis.usableArea;
}

// ---------------------------------------------------------------------------------------------
// EstimateInputDto validation (System.Text.Json web defaults: case-insensitive names, numbers may be strings)

const INPUT_FIELDS = {
	buildYear: 'int32',
	currentCommondebt: 'double',
	estateType: 'string',
	estimateDate: 'date',
	externalUsableArea: 'double',
	floor: 'int32',
	glazedBalconyUsableArea: 'double',
	grossArea: 'double',
	includeComparables: 'boolean',
	internalUsableArea: 'double',
	numberOfBedrooms: 'int32',
	numberOfFloorsInBuilding: 'int32',
	ownershipType: 'string',
	primaryArea: 'double',
	siteArea: 'double',
	siteType: 'string',
	storeEstimate: 'boolean',
	usableArea: 'int32',
	valuation: 'valuation',
};
const VALUATION_FIELDS = {
	date: 'date',
	price: 'double',
	saleType: 'string',
	commondebt: 'double',
};
const VALUATION_REQUIRED = ['date', 'price', 'saleType'];

function coerce(type, value) {
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim() !== ''
				? Number(value)
				: NaN;
	switch (type) {
		case 'int32':
			return Number.isInteger(number) && Math.abs(number) <= INT32_MAX
				? { value: number }
				: { error: 'must be a 32-bit integer' };
		case 'double':
			return Number.isFinite(number) ? { value: number } : { error: 'must be a number' };
		case 'string':
			return typeof value === 'string' ? { value } : { error: 'must be a string' };
		case 'boolean':
			return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
		case 'date':
			return typeof value === 'string' && !Number.isNaN(Date.parse(value))
				? { value: Date.parse(value) }
				: { error: 'must be an ISO 8601 date-time' };
		default:
			return { error: 'unsupported' };
	}
}

/** Read known fields of an object by case-insensitive name; returns { values, errors }. */
function readFields(source, fields, prefix, errors) {
	const byLower = new Map(Object.keys(fields).map((f) => [f.toLowerCase(), f]));
	const values = {};
	for (const [rawName, rawValue] of Object.entries(source)) {
		const name = byLower.get(rawName.toLowerCase());
		if (!name || rawValue === null || rawValue === undefined) continue;
		if (fields[name] === 'valuation') {
			if (!isPlainObject(rawValue)) {
				errors[`${prefix}${name}`] = ['must be an object'];
				continue;
			}
			const valuation = readFields(rawValue, VALUATION_FIELDS, `${name}.`, errors);
			for (const required of VALUATION_REQUIRED) {
				if (valuation[required] === undefined && !errors[`${name}.${required}`])
					errors[`${name}.${required}`] = ['is required'];
			}
			values[name] = valuation;
			continue;
		}
		const result = coerce(fields[name], rawValue);
		if (result.error) errors[`${prefix}${name}`] = [result.error];
		else values[name] = result.value;
	}
	return values;
}

function parseEstimateInput(body) {
	const errors = {};
	const values = readFields(body, INPUT_FIELDS, '', errors);
	return { values, errors };
}

// ---------------------------------------------------------------------------------------------

function createEstimate(state, idp) {
	const prefix = state.estimatePrefix;

	function problem(res, status, title, extra = {}, headers = {}) {
		sendJson(
			res,
			status,
			{ status, title, ...extra },
			headers,
			'application/problem+json; charset=utf-8',
		);
	}

	/** JSON content negotiation among the three offered types (application/json by default). */
	function sendData(ctx, data) {
		const accepted = String(ctx.req.headers.accept || '')
			.split(',')
			.map((part) => part.split(';')[0].trim().toLowerCase());
		const type =
			accepted.find((t) => ['application/json', 'text/json', 'text/plain'].includes(t)) ||
			'application/json';
		sendJson(ctx.res, 200, { data }, {}, `${type}; charset=utf-8`);
	}

	/** Bearer token from realm "estimate" with scope estimate:read; answers 401/403 itself. */
	function authorize(ctx) {
		const result = idp.checkBearer(ctx.req, ['estimate']);
		if (!result.ok) {
			problem(
				ctx.res,
				401,
				'Unauthorized',
				{ detail: result.reason },
				{
					'www-authenticate': `Bearer error="invalid_token", error_description="${result.reason}"`,
				},
			);
			return false;
		}
		if (!result.scopes.includes('estimate:read')) {
			problem(
				ctx.res,
				403,
				'Forbidden',
				{ detail: 'token lacks scope estimate:read' },
				{ 'www-authenticate': 'Bearer error="insufficient_scope", scope="estimate:read"' },
			);
			return false;
		}
		return true;
	}

	// ---- stored documents -------------------------------------------------------------------

	/** Seed 2–3 stored documents for a known object (ids stable across runs). */
	function documentsOf(obj) {
		let ids = state.docsByObject.get(obj.key);
		if (!ids) {
			ids = [];
			const rng = seededRandom(`docs:${obj.key}`);
			const count = rng.int(2, 3);
			for (let i = 0; i < count; i++) {
				let id = 10000000 + (hashInt(`doc:${obj.key}:${i}`) % 1000000000);
				while (state.docs.has(id)) id++;
				const dateMs =
					Date.UTC(2023, 0, 1) + rng.int(0, 900) * DAY_MS + rng.int(8 * 3600, 17 * 3600) * 1000;
				const estimate = computeEstimate(obj, { estimateDate: dateMs });
				state.docs.set(id, {
					estimateDocumentId: id,
					estimateDate: isoDay(dateMs),
					estimateTotalMarketValue: estimate.approvedTotalMarketValue,
					reference: rng.pick([
						null,
						'Lånesøknad',
						'Refinansiering',
						`Boliglån ${new Date(dateMs).getUTCFullYear()}`,
					]),
					objectKey: obj.key,
					objectLabel: obj.label,
					municipality: obj.muni.name,
				});
				ids.push(id);
			}
			state.docsByObject.set(obj.key, ids);
		}
		return ids.map((id) => state.docs.get(id));
	}

	function storeDocument(obj, estimate) {
		documentsOf(obj);
		const id = state.nextDocId++;
		state.docs.set(id, {
			estimateDocumentId: id,
			estimateDate: new Date().toISOString(),
			estimateTotalMarketValue: estimate.approvedTotalMarketValue,
			reference: null,
			objectKey: obj.key,
			objectLabel: obj.label,
			municipality: obj.muni.name,
		});
		state.docsByObject.get(obj.key).push(id);
		return id;
	}

	const publicDocument = (doc) => ({
		estimateDate: doc.estimateDate,
		estimateDocumentId: doc.estimateDocumentId,
		estimateTotalMarketValue: doc.estimateTotalMarketValue,
		reference: doc.reference,
	});

	// ---- estimate computation ---------------------------------------------------------------

	function computeEstimate(obj, input) {
		const basis = basisFor(obj);
		const attrs = { ...basis };
		for (const [k, v] of Object.entries(input)) if (k in basis && k !== 'valuation') attrs[k] = v;
		if (input.numberOfBedrooms !== undefined) attrs.numberOfBedrooms = input.numberOfBedrooms;
		const nowMs = Date.now();
		const atMs = Math.min(input.estimateDate ?? nowMs, nowMs);
		let total = modelValue(obj, basis, attrs, atMs);
		const debt = input.currentCommondebt ?? basis.currentCommondebt;
		if (input.valuation) {
			const v = input.valuation;
			const saleMs = Math.min(v.date, atMs);
			const saleTotal =
				(v.price + (v.commondebt ?? debt)) * (1 + YEARLY_INDEX) ** ((atMs - saleMs) / YEAR_MS);
			total = 0.5 * total + 0.5 * saleTotal;
		}
		const rng = seededRandom(`estimate:${obj.key}`);
		const level = rng.int(1, 7);
		const reference = modelValue(obj, basis, basis, nowMs);
		const maxValueLimit =
			rng() < 0.25 ? null : Math.round((reference * (rng() < 0.15 ? 0.95 : 1.6)) / 100000) * 100000;
		const estimateTotalMarketValue = Math.round(total / 1000) * 1000;
		let approved = estimateTotalMarketValue;
		let adjustment = null;
		if (maxValueLimit !== null && estimateTotalMarketValue > maxValueLimit) {
			approved = maxValueLimit;
			adjustment = 'MaxValueLimit';
		} else if (level >= 5) {
			approved = Math.round((estimateTotalMarketValue * (1 - 0.025 * (level - 4))) / 1000) * 1000;
			adjustment = 'UncertaintyLevel';
		}
		const share = obj.form === 'share';
		const commondebtLastUpdated = share ? Math.round(debt) : null;
		const quarterEnd = new Date(nowMs);
		const lastQuarterEnd = Date.UTC(
			quarterEnd.getUTCFullYear(),
			Math.floor(quarterEnd.getUTCMonth() / 3) * 3,
			0,
		);
		return {
			approvedNetMarketValue: approved - (commondebtLastUpdated ?? 0),
			approvedTotalMarketValue: approved,
			commondebtLastUpdated,
			commondebtLastUpdatedDate: share ? isoDay(lastQuarterEnd) : null,
			comparables: input.includeComparables ? comparablesFor(obj, basis) : null,
			estimateAdjustmentType: adjustment,
			estimateNetMarketValueRounded: Math.round((estimateTotalMarketValue - debt) / 10000) * 10000,
			estimateTotalMarketValue,
			estimateUncertaintyLevel: level,
			generalForeclosureDiscount: rng() < 0.2 ? null : rng.int(12, 30),
			marketScore: { area: rng.int(1, 10), municipality: rng.int(1, 10) },
			maxValueLimit,
			storedEstimateDocumentationId: null,
		};
	}

	function comparablesFor(obj, basis) {
		const rng = seededRandom(`comparables:${obj.key}`);
		const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
		const count = rng.int(3, 5);
		const out = [];
		for (let i = 0; i < count; i++) {
			const [code, postName] = rng.pick(obj.muni.posts);
			const streetName = rng.pick(obj.muni.streets);
			const primaryArea = round(basis.primaryArea * rng.float(0.8, 1.2, 3), 1);
			const squaremeterPrice = round(obj.muni.sqm * rng.float(0.8, 1.2, 3), 2);
			const commonDebt = obj.form === 'share' ? rng.int(30, 700) * 1000 : 0;
			const totalValue = Math.round((primaryArea * squaremeterPrice) / 5000) * 5000;
			const shareIdentity =
				obj.form === 'share'
					? {
							housingCooperative: {
								name: `Borettslaget ${streetName} ${rng.int(1, 40)}`,
								organizationNumber: rng.int(900000000, 999999999),
							},
							shareNumber: rng.int(1, 250),
						}
					: null;
			out.push({
				address: {
					municipality: obj.muni.name,
					postOffice: { code, name: postName },
					streetLetter: rng() < 0.2 ? rng.pick(['A', 'B', 'C']) : null,
					streetName,
					streetNumber: rng.int(1, 140),
				},
				buildYear: rng.int(1900, 2022),
				cadastre: {
					bnr: rng.int(1, 900),
					fnr: 0,
					gnr: rng.int(1, 300),
					knr: obj.muni.knr,
					municipality: obj.muni.name,
					snr: obj.section ? rng.int(1, 60) : 0,
				},
				externalUsableArea: round(primaryArea * 0.02, 1),
				glazedBalconyUsableArea: rng.float(0, 6, 1),
				housingCooperativeShareIdentity: shareIdentity,
				internalUsableArea: round(primaryArea * 1.04, 1),
				location: {
					latitude: round(obj.muni.lat + rng.float(-0.03, 0.03, 5), 5),
					longitude: round(obj.muni.lon + rng.float(-0.05, 0.05, 5), 5),
				},
				lowHeightFloorArea: rng.float(0, 8, 1),
				openTerraceAndBalconyArea: rng.float(0, 20, 1),
				primaryArea,
				squaremeterPrice,
				valuation: {
					commonDebt,
					date: isoDay(today - rng.int(10, 360) * DAY_MS),
					price: totalValue - commonDebt,
					totalValue,
					type: 'Fritt salg',
				},
			});
		}
		return out;
	}

	function marketEstimate(obj) {
		const basis = basisFor(obj);
		const estimate = Math.round(modelValue(obj, basis, basis, Date.now()) / 10000) * 10000;
		const level = seededRandom(`estimate:${obj.key}`).int(1, 7);
		const spread = 0.05 + level * 0.015;
		let estimateLow = Math.round((estimate * (1 - spread)) / 10000) * 10000;
		let estimateHigh = Math.round((estimate * (1 + spread)) / 10000) * 10000;
		if (estimateLow >= estimate) estimateLow = estimate - 10000;
		if (estimateHigh <= estimate) estimateHigh = estimate + 10000;
		return { estimate, estimateHigh, estimateLow };
	}

	function housingCooperative(organizationNumber) {
		const rng = seededRandom(`cooperative:${organizationNumber}`);
		const shares = rng.int(12, 240);
		const obj = resolveObject([organizationNumber, 1]);
		const perShare = modelValue(obj, basisFor(obj), basisFor(obj), Date.now());
		return {
			approvedTotalMarketValue: round(perShare * shares * rng.float(0.9, 1.1, 4), 2),
			estimateUncertaintyLevel: rng.int(1, 7),
		};
	}

	// ---- operations (shared by both object forms) ---------------------------------------------

	const operations = {
		EstimateDocuments: {
			methods: ['GET'],
			auth: true,
			run(ctx, obj) {
				sendData(
					ctx,
					obj.known
						? documentsOf(obj)
								.map(publicDocument)
								.sort((a, b) => b.estimateDate.localeCompare(a.estimateDate))
						: null,
				);
			},
		},
		EvEstimate: {
			methods: ['POST'],
			auth: true,
			run(ctx, obj) {
				let input = {};
				if (ctx.rawBody.length > 0) {
					const type = mediaType(ctx.req.headers['content-type']);
					if (type && !isJsonType(type) && type !== 'text/plain') {
						return problem(ctx.res, 415, 'Unsupported Media Type', {
							detail: 'send application/json, text/json or application/*+json',
						});
					}
					const parsed = parseJson(ctx.rawBody);
					if (!parsed.ok)
						return problem(ctx.res, 400, 'Malformed JSON body', { detail: parsed.error });
					if (parsed.value !== undefined && parsed.value !== null) {
						if (!isPlainObject(parsed.value))
							return problem(ctx.res, 400, 'The body must be a JSON object');
						const { values, errors } = parseEstimateInput(parsed.value);
						if (Object.keys(errors).length)
							return problem(ctx.res, 400, 'One or more validation errors occurred.', { errors });
						input = values;
					}
				}
				if (!obj.known)
					return problem(ctx.res, 404, 'Not Found', {
						detail: `estimate could not be retrieved for ${obj.label}`,
					});
				const estimate = computeEstimate(obj, input);
				if (input.storeEstimate !== false)
					estimate.storedEstimateDocumentationId = storeDocument(obj, estimate);
				sendData(ctx, estimate);
			},
		},
		EvEstimateBasis: {
			methods: ['GET'],
			auth: true,
			run(ctx, obj) {
				sendData(ctx, obj.known ? basisFor(obj) : null);
			},
		},
		MarketEstimate: {
			methods: ['GET'],
			auth: false,
			run(ctx, obj) {
				sendData(ctx, obj.known ? marketEstimate(obj) : null);
			},
		},
	};
	const cooperativeOperation = {
		methods: ['GET'],
		auth: true,
		run(ctx, obj) {
			sendData(ctx, housingCooperative(obj.organizationNumber));
		},
	};

	function parseInt32(segment) {
		if (!/^\d{1,10}$/.test(segment)) return null;
		const n = Number(segment);
		return n <= INT32_MAX ? n : null;
	}

	function lookup(name, table) {
		const key = Object.keys(table).find((k) => k.toLowerCase() === name.toLowerCase());
		return key ? table[key] : null;
	}

	function runOperation(ctx, operation, obj) {
		if (!operation.methods.includes(ctx.req.method)) {
			return problem(
				ctx.res,
				405,
				'Method Not Allowed',
				{},
				{ allow: operation.methods.join(', ') },
			);
		}
		if (operation.auth && !authorize(ctx)) return undefined;
		return operation.run(ctx, obj);
	}

	function documentPdf(ctx, segment) {
		if (ctx.req.method !== 'GET')
			return problem(ctx.res, 405, 'Method Not Allowed', {}, { allow: 'GET' });
		const id = parseInt32(segment);
		if (id === null || id < 1) {
			return problem(ctx.res, 400, 'Bad Request', {
				detail: 'evEstimateDocumentId must be an integer from 1 to 2147483647',
			});
		}
		let doc;
		if (id >= LARGE_DOC_FIRST && id <= LARGE_DOC_LAST) {
			const megabytes = id - 900000;
			const value = 3000000 + (hashInt(`large:${id}`) % 9000) * 1000;
			doc = {
				seed: `large:${id}`,
				title: `EV estimate document ${id}`,
				date: '2024-01-15T12:00:00.000Z',
				lines: [
					`Large test document ${id} (${megabytes} MB).`,
					`Estimated total market value: NOK ${formatNok(value)}`,
					'Padding: an unused grey image.',
				],
				totalBytes: megabytes * 1024 * 1024,
			};
		} else {
			const stored = state.docs.get(id);
			if (!stored)
				return problem(ctx.res, 404, 'Not Found', { detail: `no estimate document ${id}` });
			doc = {
				seed: `doc:${id}:${stored.estimateDate}`,
				title: `EV estimate document ${id}`,
				date: stored.estimateDate,
				lines: [
					`Object: ${stored.objectLabel} (${stored.municipality})`,
					`Estimate date: ${stored.estimateDate.slice(0, 10)}`,
					`Estimated total market value: NOK ${formatNok(stored.estimateTotalMarketValue)}`,
					`Reference: ${stored.reference ?? '-'}`,
					'Simulated document (SBL simulator), not a real valuation.',
				],
			};
		}
		const plan = planPdf(doc);
		ctx.res.writeHead(200, {
			'content-type': 'application/pdf',
			'content-length': plan.length,
			'content-disposition': `attachment; filename="estimate-${id}.pdf"`,
		});
		return writePdf(ctx.res, plan);
	}

	/** Routes under the estimate prefix. Returns true when handled. */
	function handle(ctx, subPath) {
		const segments = subPath.split('/').filter(Boolean);
		if (
			segments.length === 3 &&
			segments[0].toLowerCase() === 'evestimate' &&
			segments[1].toLowerCase() === 'documents'
		) {
			documentPdf(ctx, segments[2]);
			return true;
		}
		if (segments.length < 3 || segments[0].toLowerCase() !== 'realestates') return false;
		const numbers = segments.slice(1, -1).map(parseInt32);
		if (numbers.some((n) => n === null)) return false;
		const opName = segments[segments.length - 1];
		if (numbers.length === 1) {
			if (opName.toLowerCase() !== 'evestimatehousingcooperative') return false;
			runOperation(ctx, cooperativeOperation, { organizationNumber: numbers[0] });
			return true;
		}
		if (numbers.length !== 2 && numbers.length !== 5) return false;
		const operation = lookup(opName, operations);
		if (!operation) return false;
		runOperation(ctx, operation, resolveObject(numbers));
		return true;
	}

	return { handle, prefix, computeEstimate, basisFor, resolveObject };
}

function formatNok(value) {
	return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

module.exports = {
	createEstimate,
	resolveObject,
	basisFor,
	LARGE_DOC_FIRST,
	LARGE_DOC_LAST,
	STORED_DOC_FIRST_ID,
	UNKNOWN_MARKER,
};
