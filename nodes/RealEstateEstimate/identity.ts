// The one place that turns an object into a path: the identification forms never get twin code paths.
import {
	checkInteger,
	checkOrganizationNumber,
	checkPositiveInteger,
	isEmpty,
} from '../shared/validation';
import { checkKnr } from './validators';

export type ObjectIdentity =
	| { form: 'cadastre'; knr: string; gnr: number; bnr: number; fnr: number; snr: number }
	| { form: 'share'; organizationNumber: string; shareNumber: number }
	| { form: 'cooperative'; organizationNumber: string };

export type IdentityForm = ObjectIdentity['form'];

export const IDENTITY_FIELDS: Record<IdentityForm, string[]> = {
	cadastre: ['knr', 'gnr', 'bnr', 'fnr', 'snr'],
	share: ['organizationNumber', 'shareNumber'],
	cooperative: ['organizationNumber'],
};

interface IdentityIssue {
	field: string;
	error: string;
	hint?: string;
}

export function parseIdentity(
	form: IdentityForm,
	raw: Record<string, unknown>,
):
	| { identity: ObjectIdentity; issue?: undefined }
	| { identity?: undefined; issue: IdentityIssue } {
	if (form === 'cadastre') {
		const knr = checkKnr(raw.knr);
		if (knr.error !== undefined) return { issue: { field: 'knr', error: knr.error } };
		const ranges: Array<[string, number, number, unknown]> = [
			['gnr', 1, 99999, raw.gnr],
			['bnr', 1, 9999, raw.bnr],
			// a missing leasehold or section number means "none": 0, as the API expects
			['fnr', 0, 9999, isEmpty(raw.fnr) ? 0 : raw.fnr],
			['snr', 0, 999, isEmpty(raw.snr) ? 0 : raw.snr],
		];
		const numbers: Record<string, number> = {};
		for (const [field, min, max, value] of ranges) {
			const check = checkInteger(value, min, max);
			if (check.error !== undefined) return { issue: { field, error: check.error } };
			numbers[field] = check.value;
		}
		return {
			identity: {
				form,
				knr: knr.value,
				gnr: numbers.gnr,
				bnr: numbers.bnr,
				fnr: numbers.fnr,
				snr: numbers.snr,
			},
		};
	}
	const organizationNumber = checkOrganizationNumber(raw.organizationNumber);
	if (organizationNumber.error !== undefined) {
		return {
			issue: {
				field: 'organizationNumber',
				error: organizationNumber.error,
				hint: organizationNumber.hint,
			},
		};
	}
	if (form === 'cooperative')
		return { identity: { form, organizationNumber: organizationNumber.value } };
	const shareNumber = checkPositiveInteger(raw.shareNumber);
	if (shareNumber.error !== undefined)
		return { issue: { field: 'shareNumber', error: shareNumber.error } };
	return {
		identity: {
			form,
			organizationNumber: organizationNumber.value,
			shareNumber: shareNumber.value,
		},
	};
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
