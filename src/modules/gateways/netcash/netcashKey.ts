const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Netcash's service keys and software vendor keys are GUIDs: checked in the gateway's settings and in its files. */
export const isNetcashKey = (text: string): boolean => GUID.test(text);
