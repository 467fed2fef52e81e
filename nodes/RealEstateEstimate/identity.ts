// The one place that turns an object into a path: the identification forms never get twin code paths.
import type { IExecuteFunctions } from 'n8n-workflow';
import {
	checkInteger,
	checkOrganizationNumber,
	checkPositiveInteger,
	fail,
	isEmpty,
	ok,
	show,
} from '../shared/validation';
import type { Check, Fields } from '../shared/validation';

export type ObjectIdentity =
	| { form: 'cadastre'; knr: string; gnr: number; bnr: number; fnr: number; snr: number }
	| { form: 'share'; organizationNumber: string; shareNumber: number }
	| { form: 'cooperative'; organizationNumber: string };

type IdentityForm = ObjectIdentity['form'];

const IDENTITY_FIELDS: Record<IdentityForm, string[]> = {
	cadastre: ['knr', 'gnr', 'bnr', 'fnr', 'snr'],
	share: ['organizationNumber', 'shareNumber'],
	cooperative: ['organizationNumber'],
};

// Leading zero kept (0301 is Oslo): a number is padded, a string must already have four digits.
export function checkKnr(value: unknown): Check<string> {
	const rule = 'must be exactly 4 digits with its leading zero, such as 0301';
	if (isEmpty(value)) return fail(`is required (${rule.replace('must be ', '')})`);
	let text: string;
	if (typeof value === 'number') {
		if (!Number.isInteger(value) || value < 1 || value > 9999)
			return fail(`${rule}, got ${show(value)}`);
		text = String(value).padStart(4, '0');
	} else if (typeof value === 'string') {
		text = value.trim();
	} else {
		return fail(`${rule}, got ${show(value)}`);
	}
	if (!/^\d{4}$/.test(text) || text === '0000') return fail(`${rule}, got ${show(value)}`);
	return ok(text);
}

interface IdentityIssue {
	field: string;
	error: string;
	hint?: string;
}

/** The first field that fails, in the order of IDENTITY_FIELDS. */
export function parseIdentity(
	form: IdentityForm,
	raw: Record<string, unknown>,
):
	| { identity: ObjectIdentity; issue?: undefined }
	| { identity?: undefined; issue: IdentityIssue } {
	let issue: IdentityIssue | undefined;
	const take = <T>(field: string, check: Check<T>): T => {
		if (check.error !== undefined) issue ??= { field, error: check.error, hint: check.hint };
		return check.value as T;
	};
	let identity: ObjectIdentity;
	if (form === 'cadastre') {
		identity = {
			form,
			knr: take('knr', checkKnr(raw.knr)),
			gnr: take('gnr', checkInteger(raw.gnr, 1, 99999)),
			bnr: take('bnr', checkInteger(raw.bnr, 1, 9999)),
			// a missing leasehold or section number means "none": 0, as the API expects
			fnr: take('fnr', checkInteger(isEmpty(raw.fnr) ? 0 : raw.fnr, 0, 9999)),
			snr: take('snr', checkInteger(isEmpty(raw.snr) ? 0 : raw.snr, 0, 999)),
		};
	} else {
		const organizationNumber = take(
			'organizationNumber',
			checkOrganizationNumber(raw.organizationNumber),
		);
		identity =
			form === 'cooperative'
				? { form, organizationNumber }
				: {
						form,
						organizationNumber,
						shareNumber: take('shareNumber', checkPositiveInteger(raw.shareNumber)),
					};
	}
	return issue ? { issue } : { identity };
}

/** The object of an item: the form is given (housing cooperative) or read from `identifyBy`. */
export function readIdentity(
	ctx: IExecuteFunctions,
	fields: Fields,
	itemIndex: number,
	fixedForm?: IdentityForm,
): ObjectIdentity {
	const form =
		fixedForm ?? (ctx.getNodeParameter('identifyBy', itemIndex, 'cadastre') as IdentityForm);
	const allowed: IdentityForm[] = fixedForm ? [fixedForm] : ['cadastre', 'share'];
	if (!allowed.includes(form)) {
		throw fields.error(
			itemIndex,
			'identifyBy',
			`must be cadastre or share, got ${JSON.stringify(form)}`,
		);
	}
	const raw: Record<string, unknown> = {};
	for (const field of IDENTITY_FIELDS[form])
		raw[field] = ctx.getNodeParameter(field, itemIndex, '');
	const result = parseIdentity(form, raw);
	if (result.issue)
		throw fields.error(itemIndex, result.issue.field, result.issue.error, result.issue.hint);
	return result.identity;
}

/** `/RealEstates/0301/208/12/0/0`, `/RealEstates/987654325/12` or `/RealEstates/987654325`. */
export function objectPath(identity: ObjectIdentity): string {
	switch (identity.form) {
		case 'cadastre':
			return `/RealEstates/${identity.knr}/${identity.gnr}/${identity.bnr}/${identity.fnr}/${identity.snr}`;
		case 'share':
			return `/RealEstates/${identity.organizationNumber}/${identity.shareNumber}`;
		case 'cooperative':
			return `/RealEstates/${identity.organizationNumber}`;
	}
}

export function describeObject(identity: ObjectIdentity): string {
	switch (identity.form) {
		case 'cadastre':
			return `cadastre ${identity.knr}-${identity.gnr}/${identity.bnr}/${identity.fnr}/${identity.snr}`;
		case 'share':
			return `housing cooperative ${identity.organizationNumber} share ${identity.shareNumber}`;
		case 'cooperative':
			return `housing cooperative ${identity.organizationNumber}`;
	}
}
