/**
 * Input checks for the Consent Flow node. Everything here runs before any request is sent and
 * throws a NodeOperationError that names the item (counted from 1) and the field.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import {
	checkNationalId,
	validateHttpUrl,
	validateOrganizationNumber,
} from '../shared/identifiers';

export const FIELD_LABELS = {
	nationalId: 'National ID',
	lastName: 'Last Name',
	organizationId: 'Organization ID',
	redirectUrl: 'Redirect URL',
	webhookUrl: 'Webhook URL',
	externalId: 'External ID',
	flowId: 'Flow ID',
	maxRetries: 'Max Retries',
	retryDelayMs: 'Retry Wait (Ms)',
} as const;

export type FieldName = keyof typeof FIELD_LABELS;

/** "Item 3" for itemIndex 2: items are counted from 1 in messages, as people count them. */
export function itemLabel(itemIndex: number): string {
	return `Item ${itemIndex + 1}`;
}

/** A validation error naming item and field; the field's parameter name is kept in `context.field`. */
export function fieldError(
	node: INode,
	itemIndex: number,
	field: FieldName,
	problem: string,
	description?: string,
): NodeOperationError {
	const error = new NodeOperationError(
		node,
		`${itemLabel(itemIndex)}: "${FIELD_LABELS[field]}" ${problem}`,
		{
			itemIndex,
			description,
		},
	);
	error.context.field = field;
	return error;
}

/** A parameter value as text: null/undefined → '', numbers and booleans → their text. */
export function asText(value: unknown): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return JSON.stringify(value);
}

/** Removes all whitespace (people write "010190 12345" or "923 609 016"). */
export function stripSpaces(value: string): string {
	return value.replace(/\s+/g, '');
}

const NUMBER_HINT =
	'The value arrived as a number, so a leading zero may have been lost: map it as text, not as a number.';

/**
 * National identity number: whitespace is removed, then the full check (length, date with D/H/
 * synthetic variants, control digits, 2032 rule) unless `validate` is false — then only non-empty.
 */
export function nationalIdFrom(
	node: INode,
	itemIndex: number,
	raw: unknown,
	validate: boolean,
): string {
	const value = stripSpaces(asText(raw));
	if (!value)
		return throwField(
			node,
			itemIndex,
			'nationalId',
			'is empty',
			'Enter the 11-digit national identity number (fødselsnummer or D-number) of the person.',
		);
	if (!validate) return value;
	const { error } = checkNationalId(value);
	if (error) {
		const details = [
			`Got ${value.length} character${value.length === 1 ? '' : 's'} after removing spaces.`,
			typeof raw === 'number' ? NUMBER_HINT : undefined,
			'For unusual test data you can switch off Options → Validate National ID.',
		];
		throwField(node, itemIndex, 'nationalId', error, details.filter(Boolean).join(' '));
	}
	return value;
}

export function organizationIdFrom(node: INode, itemIndex: number, raw: unknown): string {
	const value = stripSpaces(asText(raw));
	if (!value)
		return throwField(
			node,
			itemIndex,
			'organizationId',
			'is empty',
			'Enter the 9-digit organization number of the lender.',
		);
	const error = validateOrganizationNumber(value);
	if (error) {
		const details = [
			`Got ${value.length} character${value.length === 1 ? '' : 's'} after removing spaces.`,
			typeof raw === 'number' ? NUMBER_HINT : undefined,
		];
		throwField(node, itemIndex, 'organizationId', error, details.filter(Boolean).join(' '));
	}
	return value;
}

export function urlFrom(
	node: INode,
	itemIndex: number,
	field: 'redirectUrl' | 'webhookUrl',
	raw: unknown,
	production: boolean,
): string {
	const value = asText(raw).trim();
	if (!value)
		return throwField(
			node,
			itemIndex,
			field,
			'is empty',
			'Enter an absolute URL such as https://example.com/path.',
		);
	const error = validateHttpUrl(value, production);
	if (error) throwField(node, itemIndex, field, error);
	if (production && field === 'webhookUrl' && /\/webhook-test\//.test(new URL(value).pathname)) {
		throwField(
			node,
			itemIndex,
			field,
			"is the Consent Flow Trigger's Test URL, which only listens while you test the workflow",
			"Use the trigger's Production URL (…/webhook/…) and activate the workflow: the flow's events arrive over days.",
		);
	}
	return value;
}

/** Trimmed, non-empty text. */
export function requiredText(
	node: INode,
	itemIndex: number,
	field: FieldName,
	raw: unknown,
	hint: string,
): string {
	const value = asText(raw).trim();
	if (!value) throwField(node, itemIndex, field, 'is empty', hint);
	return value;
}

/** A whole number in [min, max]; `fallback` when not set. */
export function integerFrom(
	node: INode,
	itemIndex: number,
	field: FieldName,
	raw: unknown,
	fallback: number,
	min: number,
	max: number,
): number {
	if (raw === undefined || raw === null || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < min || value > max) {
		throwField(node, itemIndex, field, `must be a whole number from ${min} to ${max}`);
	}
	return value;
}

function throwField(
	node: INode,
	itemIndex: number,
	field: FieldName,
	problem: string,
	description?: string,
): never {
	throw fieldError(node, itemIndex, field, problem, description);
}
