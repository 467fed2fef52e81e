/**
 * Reading parameters of one item and turning a broken rule into a NodeOperationError that names
 * the item and the field.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';
import { describeObject, IDENTITY_LABELS, parseIdentity } from './identity';
import type { IdentityForm, ObjectIdentity } from './identity';

export function invalidParameter(
	ctx: IExecuteFunctions,
	itemIndex: number,
	label: string,
	error: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${label} ${error} [item ${itemIndex}]`, {
		itemIndex,
		description: description ?? 'No request was sent for this item.',
	});
}

const FIELDS: Record<IdentityForm, string[]> = {
	cadastre: ['knr', 'gnr', 'bnr', 'fnr', 'snr'],
	share: ['organizationNumber', 'shareNumber'],
	cooperative: ['organizationNumber'],
};

/** The object of an item: the form is given (housing cooperative) or read from `identifyBy`. */
export function readIdentity(ctx: IExecuteFunctions, itemIndex: number, fixedForm?: IdentityForm): ObjectIdentity {
	const form = fixedForm ?? (ctx.getNodeParameter('identifyBy', itemIndex, 'cadastre') as IdentityForm);
	if (!(form in FIELDS)) {
		throw invalidParameter(ctx, itemIndex, 'Identify By', `must be cadastre or share, got ${JSON.stringify(form)}`);
	}
	const raw: Record<string, unknown> = {};
	for (const field of FIELDS[form]) raw[field] = ctx.getNodeParameter(field, itemIndex, '');
	const result = parseIdentity(form, raw);
	if (result.issue) throw invalidParameter(ctx, itemIndex, IDENTITY_LABELS[result.issue.field], result.issue.error);
	return result.identity;
}

export { describeObject };
