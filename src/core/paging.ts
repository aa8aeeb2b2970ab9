/** A slice of a list ordered by creation: what `page` and `page_size` ask for. */
export interface Page {
  limit: number;
  offset: number;
}
