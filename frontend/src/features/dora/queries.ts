import { graphql } from "../../gql";

export const DoraPageFigures = graphql(`
  fragment DoraPageFigures on DoraFigures {
    deploymentFrequency {
      deploys
      perWeek
      band
      deploymentIds
    }
    leadTime {
      seconds
      samples
      enoughData
      band
      deploymentIds
    }
    changeFailRate {
      count
      of
      rate
      enoughData
      band
      deploymentIds
    }
    recoveryTime {
      seconds
      samples
      enoughData
      band
      deploymentIds
      unrecoveredIds
    }
    reworkRate {
      count
      of
      rate
      enoughData
      band
      deploymentIds
    }
  }
`);

export const DoraPageQuery = graphql(`
  query DoraPage($filter: DoraFilter) {
    doraMetrics(filter: $filter) {
      from
      to
      weeks {
        year
        week
        start
        figures {
          ...DoraPageFigures
        }
      }
      total {
        ...DoraPageFigures
      }
    }
  }
`);
