// The value of the input or select an event came from (Preact's events are the DOM's).
export const val = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
