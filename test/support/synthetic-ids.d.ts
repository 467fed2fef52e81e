export interface SyntheticBirth {
	day?: number;
	/** The real month, 1-12 (80 is added). */
	month?: number;
	year?: number;
	individual?: number;
}
export function buildSyntheticNationalId(birth?: SyntheticBirth): string | undefined;
export function syntheticNationalId(index?: number, accept?: (id: string) => boolean): string;
export function isSyntheticNationalId(value: unknown): boolean;
export function digitSum(value: string): number;
export function withWrongCheckDigit(id: string): string;
