import { PageView, pageMetadata } from "../lib/page-view";

/** `/`: the page whose uid is `home`, as Pressroom's route resolver says. */
export default function Home() {
  return <PageView uid="home" />;
}

export const generateMetadata = () => pageMetadata("home");
