import type { IExecuteFunctions } from 'n8n-workflow';
import type { Fields } from '../shared/validation';
import { fail } from '../shared/validation';
import { IDENTITY_FIELDS, parseIdentity } from './identity';
import type { IdentityForm, ObjectIdentity } from './identity';

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
		fields.take(
			itemIndex,
			'identifyBy',
			fail(`must be cadastre or share, got ${JSON.stringify(form)}`),
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
