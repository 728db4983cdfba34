/** A page of the admin area below its home: the navbar with the way back, the title, the page. */
export { TitledPage as AdminPage } from '../../../../components/titled-page';
